-- pgTAP: the SQL surface of quickstep_pax (access method, handler,
-- check_table).
\set ON_ERROR_STOP 1
\set QUIET 1
\pset format unaligned
\pset tuples_only true
\pset pager off
BEGIN;
SELECT plan(17);

SELECT has_function('quickstep', 'pax_handler', ARRAY['internal'], 'quickstep.pax_handler(internal) exists');
SELECT function_returns('quickstep', 'pax_handler', ARRAY['internal'], 'table_am_handler', 'it returns table_am_handler');
SELECT is((SELECT amtype::text FROM pg_am WHERE amname = 'quickstep_pax'), 't', 'quickstep_pax is a table access method');
SELECT is((SELECT amhandler::text FROM pg_am WHERE amname = 'quickstep_pax'), 'quickstep.pax_handler', 'handled by quickstep.pax_handler');
SELECT has_function('quickstep', 'check_table', ARRAY['regclass'], 'quickstep.check_table(regclass) exists');
SELECT function_returns('quickstep', 'check_table', ARRAY['regclass'], 'bigint', 'check_table returns bigint');
SELECT function_lang_is('quickstep', 'check_table', ARRAY['regclass'], 'c', 'check_table is written in C');

CREATE TABLE pgtap_pax (a int, b text) USING quickstep_pax;
INSERT INTO pgtap_pax SELECT g, 'x' || g FROM generate_series(1, 1000) g;
SELECT is((SELECT amname::text FROM pg_class c JOIN pg_am a ON a.oid = c.relam WHERE c.relname = 'pgtap_pax'),
          'quickstep_pax', 'CREATE TABLE ... USING quickstep_pax uses the access method');
SELECT is(quickstep.check_table('pgtap_pax'), 1000::bigint, 'check_table counts the records of a clean table');
DELETE FROM pgtap_pax WHERE a <= 10;
SELECT is(quickstep.check_table('pgtap_pax'), 1000::bigint, 'deleted records stay until VACUUM');
CREATE TABLE pgtap_heap (a int);
SELECT throws_ok($$SELECT quickstep.check_table('pgtap_heap')$$, '42809', NULL,
                 'check_table refuses a heap table (wrong_object_type)');
SELECT throws_ok($$SELECT quickstep.check_table('pg_class_oid_index')$$, '42809', NULL,
                 'check_table refuses an index');
SELECT is(quickstep.check_table(NULL), NULL, 'check_table is strict');
SELECT is((SELECT records FROM quickstep.pax_stats('pgtap_pax')), 1000::bigint, 'pax_stats counts the records on the pages (deleted ones until VACUUM)');
SELECT throws_ok($$SELECT quickstep.pax_stats('pgtap_heap')$$, NULL, NULL, 'pax_stats refuses a heap table');
SELECT ok((SELECT redistributions >= 0 FROM quickstep.pax_backend_stats()), 'pax_backend_stats reports this backend''s redistributions');
SET LOCAL default_table_access_method = quickstep_pax;
CREATE TABLE pgtap_default (a int);
SELECT is((SELECT amname::text FROM pg_class c JOIN pg_am a ON a.oid = c.relam WHERE c.relname = 'pgtap_default'),
          'quickstep_pax', 'default_table_access_method = quickstep_pax is honoured');

SELECT * FROM finish();
ROLLBACK;
