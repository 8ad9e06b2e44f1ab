-- pgTAP: the SQL surface of quickstep_nsm (access method, handler,
-- check_table).
\set ON_ERROR_STOP 1
\set QUIET 1
\pset format unaligned
\pset tuples_only true
\pset pager off
BEGIN;
SELECT plan(14);

SELECT has_function('quickstep', 'nsm_handler', ARRAY['internal'], 'quickstep.nsm_handler(internal) exists');
SELECT function_returns('quickstep', 'nsm_handler', ARRAY['internal'], 'table_am_handler', 'it returns table_am_handler');
SELECT is((SELECT amtype::text FROM pg_am WHERE amname = 'quickstep_nsm'), 't', 'quickstep_nsm is a table access method');
SELECT is((SELECT amhandler::text FROM pg_am WHERE amname = 'quickstep_nsm'), 'quickstep.nsm_handler', 'handled by quickstep.nsm_handler');
SELECT has_function('quickstep', 'check_table', ARRAY['regclass'], 'quickstep.check_table(regclass) exists');
SELECT function_returns('quickstep', 'check_table', ARRAY['regclass'], 'bigint', 'check_table returns bigint');
SELECT function_lang_is('quickstep', 'check_table', ARRAY['regclass'], 'c', 'check_table is written in C');

CREATE TABLE pgtap_nsm (a int, b text) USING quickstep_nsm;
INSERT INTO pgtap_nsm SELECT g, 'x' || g FROM generate_series(1, 1000) g;
SELECT is((SELECT amname::text FROM pg_class c JOIN pg_am a ON a.oid = c.relam WHERE c.relname = 'pgtap_nsm'),
          'quickstep_nsm', 'CREATE TABLE ... USING quickstep_nsm uses the access method');
SELECT is(quickstep.check_table('pgtap_nsm'), 1000::bigint, 'check_table counts the records of a clean table');
DELETE FROM pgtap_nsm WHERE a <= 10;
SELECT is(quickstep.check_table('pgtap_nsm'), 1000::bigint, 'deleted records stay until VACUUM');
CREATE TABLE pgtap_heap (a int);
SELECT throws_ok($$SELECT quickstep.check_table('pgtap_heap')$$, '42809', NULL,
                 'check_table refuses a heap table (wrong_object_type)');
SELECT throws_ok($$SELECT quickstep.check_table('pg_class_oid_index')$$, '42809', NULL,
                 'check_table refuses an index');
SELECT is(quickstep.check_table(NULL), NULL, 'check_table is strict');
SET LOCAL default_table_access_method = quickstep_nsm;
CREATE TABLE pgtap_default (a int);
SELECT is((SELECT amname::text FROM pg_class c JOIN pg_am a ON a.oid = c.relam WHERE c.relname = 'pgtap_default'),
          'quickstep_nsm', 'default_table_access_method = quickstep_nsm is honoured');

SELECT * FROM finish();
ROLLBACK;
