-- pgTAP: the SQL surface of quickstep_hpl (access method, handler,
-- check_table).
\set ON_ERROR_STOP 1
\set QUIET 1
\pset format unaligned
\pset tuples_only true
\pset pager off
BEGIN;
SELECT plan(14);

SELECT has_function('quickstep', 'hpl_handler', ARRAY['internal'], 'quickstep.hpl_handler(internal) exists');
SELECT function_returns('quickstep', 'hpl_handler', ARRAY['internal'], 'table_am_handler', 'it returns table_am_handler');
SELECT is((SELECT amtype::text FROM pg_am WHERE amname = 'quickstep_hpl'), 't', 'quickstep_hpl is a table access method');
SELECT is((SELECT amhandler::text FROM pg_am WHERE amname = 'quickstep_hpl'), 'quickstep.hpl_handler', 'handled by quickstep.hpl_handler');
SELECT has_function('quickstep', 'check_table', ARRAY['regclass'], 'quickstep.check_table(regclass) exists');
SELECT function_returns('quickstep', 'check_table', ARRAY['regclass'], 'bigint', 'check_table returns bigint');
SELECT function_lang_is('quickstep', 'check_table', ARRAY['regclass'], 'c', 'check_table is written in C');

CREATE TABLE pgtap_hpl (a int, b text) USING quickstep_hpl;
INSERT INTO pgtap_hpl SELECT g, 'x' || g FROM generate_series(1, 1000) g;
SELECT is((SELECT amname::text FROM pg_class c JOIN pg_am a ON a.oid = c.relam WHERE c.relname = 'pgtap_hpl'),
          'quickstep_hpl', 'CREATE TABLE ... USING quickstep_hpl uses the access method');
SELECT is(quickstep.check_table('pgtap_hpl'), 1000::bigint, 'check_table counts the records of a clean table');
DELETE FROM pgtap_hpl WHERE a <= 10;
SELECT is(quickstep.check_table('pgtap_hpl'), 1000::bigint, 'deleted records stay until VACUUM');
CREATE TABLE pgtap_heap (a int);
SELECT throws_ok($$SELECT quickstep.check_table('pgtap_heap')$$, '42809', NULL,
                 'check_table refuses a heap table (wrong_object_type)');
SELECT throws_ok($$SELECT quickstep.check_table('pg_class_oid_index')$$, '42809', NULL,
                 'check_table refuses an index');
SELECT is(quickstep.check_table(NULL), NULL, 'check_table is strict');
SET LOCAL default_table_access_method = quickstep_hpl;
CREATE TABLE pgtap_default (a int);
SELECT is((SELECT amname::text FROM pg_class c JOIN pg_am a ON a.oid = c.relam WHERE c.relname = 'pgtap_default'),
          'quickstep_hpl', 'default_table_access_method = quickstep_hpl is honoured');

SELECT * FROM finish();
ROLLBACK;
