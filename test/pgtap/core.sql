-- pgTAP: the SQL API of the core module.
\set ON_ERROR_STOP 1
\set QUIET 1
\pset format unaligned
\pset tuples_only true
\pset pager off
BEGIN;
SELECT plan(10);

SELECT has_schema('quickstep', 'the extension owns schema quickstep');
SELECT has_function('quickstep', 'status', ARRAY[]::text[], 'quickstep.status() exists');
SELECT has_function('quickstep', '_require_preload', ARRAY[]::text[], 'quickstep._require_preload() exists');
SELECT function_lang_is('quickstep', 'status', ARRAY[]::text[], 'c', 'status() is written in C');
SELECT is((SELECT version FROM quickstep.status()), '0.1', 'status() reports the extension version');
SELECT cmp_ok((SELECT shmem_bytes FROM quickstep.status()), '>', 0::bigint, 'shared memory is attached');
SELECT lives_ok('SELECT quickstep._require_preload()', 'the preload check passes when preloaded');
SELECT throws_ok($$SET quickstep.enable_pushdown = 'maybe'$$, '22023', NULL,
                 'a bad boolean value is refused with invalid_parameter_value');
SELECT throws_ok($$SET quickstep.max_shared_scans = 5$$, '55P02', NULL,
                 'a postmaster-only setting cannot change in a session');
SELECT throws_ok($$SET quickstep.no_such_setting = 1$$, '42602', NULL,
                 'the quickstep prefix is reserved');

SELECT * FROM finish();
ROLLBACK;
