-- pgTAP: the SQL API of column tables (quickstep_column).
\set ON_ERROR_STOP 1
\set QUIET 1
\pset format unaligned
\pset tuples_only true
\pset pager off
BEGIN;
SELECT plan(33);

SELECT ok(EXISTS (SELECT 1 FROM pg_am WHERE amname = 'quickstep_column' AND amtype = 't'),
          'quickstep_column is a table access method');
SELECT has_function('quickstep', 'column_handler', ARRAY['internal'], 'its handler exists');
SELECT has_function('quickstep', 'blocks', ARRAY['regclass'], 'quickstep.blocks(regclass) exists');
SELECT has_function('quickstep', 'column_table_stats', ARRAY['regclass'],
                    'quickstep.column_table_stats(regclass) exists');
SELECT has_view('quickstep', 'column_stats', 'view quickstep.column_stats exists');
SELECT columns_are('quickstep', 'column_stats',
                   ARRAY['relid', 'delta_rows', 'main_rows', 'deleted_rows', 'blocks',
                         'sealed_blocks', 'merges', 'last_merge', 'bytes', 'raw_bytes',
                         'rows_merged', 'merge_ms', 'last_error'],
                   'column_stats has the documented columns');

CREATE TABLE pt_col (a int, b text) USING quickstep_column;
CREATE TABLE pt_heap (a int);
INSERT INTO pt_col SELECT g, 'x' || g FROM generate_series(1, 10) g;
SELECT is((SELECT count(*) FROM quickstep.blocks('pt_col')), 0::bigint,
          'a few inserted rows stay in the delta: no block');
SELECT is((SELECT delta_rows FROM quickstep.column_stats WHERE relid = 'pt_col'::regclass),
          10::bigint, 'column_stats counts the delta rows');
SELECT is((SELECT main_rows FROM quickstep.column_stats WHERE relid = 'pt_col'::regclass),
          0::bigint, 'and no main row');
SELECT is((SELECT merges FROM quickstep.column_stats WHERE relid = 'pt_col'::regclass),
          0::bigint, 'and no merge (nobody merged it, and the worker leaves a delta below its threshold)');
DELETE FROM pt_col WHERE a <= 3;
SELECT is((SELECT delta_rows FROM quickstep.column_stats WHERE relid = 'pt_col'::regclass),
          7::bigint, 'deleted rows leave the delta count');
SELECT throws_ok($$SELECT * FROM quickstep.blocks('pt_heap')$$, '42809', NULL,
                 'blocks() of a heap table is refused with wrong_object_type');
SELECT throws_ok($$SELECT * FROM quickstep.column_table_stats('pt_heap')$$, '42809', NULL,
                 'column_table_stats() of a heap table is refused');
SELECT has_function('quickstep', 'column_directory', ARRAY['regclass'],
                    'quickstep.column_directory(regclass) exists');
SELECT results_eq($$SELECT entries, pages, free_entries, free_pages FROM quickstep.column_directory('pt_col')$$,
                  $$VALUES (0::bigint, 0::bigint, 0::bigint, 0::bigint)$$,
                  'column_directory() of a table without blocks: no entry, no page');
SELECT throws_ok($$SELECT * FROM quickstep.column_directory('pt_heap')$$, '42809', NULL,
                 'column_directory() of a heap table is refused');
SELECT throws_ok($$SELECT * FROM quickstep.column_directory(0)$$, '42P01', NULL,
                 'column_directory() of no relation is refused with undefined_table');
SELECT ok(NOT EXISTS (SELECT 1 FROM quickstep.column_stats WHERE relid = 'pt_heap'::regclass),
          'column_stats lists column tables only');
SELECT is((SELECT count(*) FROM pt_col), 7::bigint, 'the table answers as heap would');
SELECT is(quickstep.check_table('pt_col') >= 7, true, 'check_table covers column tables');

-- what column tables refuse, clearly
SELECT throws_ok($$CREATE INDEX ON pt_col USING brin (a)$$, '0A000', NULL,
                 'a BRIN index on a column table is refused with feature_not_supported');
SET quickstep.column_delta_rows = 0;
INSERT INTO pt_col SELECT g, 'y' FROM generate_series(100, 200) g;
RESET quickstep.column_delta_rows;
SET LOCAL enable_seqscan = off;
DECLARE pt_cur SCROLL CURSOR FOR SELECT a FROM pt_col WHERE ctid >= '(0,1)' AND ctid <= '(4294967294,1)';
MOVE FORWARD ALL IN pt_cur;
SELECT results_eq($$FETCH BACKWARD 2 FROM pt_cur$$, $$VALUES (200), (199)$$,
                  'a backward TID range scan returns the rows in blocks in reverse');

-- options: quickstep.* reloptions and the view that lists them
SELECT has_view('quickstep', 'column_options', 'view quickstep.column_options exists');
SELECT columns_are('quickstep', 'column_options', ARRAY['relid', 'name', 'value', 'note'],
                   'column_options has the documented columns');
CREATE TABLE po_col (k int, t text) USING quickstep_column
  WITH (quickstep.sort_key = 'k', quickstep.rows_per_block = 5000, quickstep.encoding_t = 'lz4');
SELECT is((SELECT string_agg(name || '=' || value || coalesce(' (' || note || ')', ''), ', ' ORDER BY name)
           FROM quickstep.column_options WHERE relid = 'po_col'::regclass),
          'encoding_t=lz4, rows_per_block=5000, sort_key=k',
          'column_options lists a table''s options without the prefix');
SELECT throws_ok($$CREATE TABLE po_bad (a int) USING quickstep_column WITH (quickstep.rows_per_block = 999)$$,
                 '22023', NULL, 'a rows_per_block below 1000 is refused with invalid_parameter_value');
SELECT throws_ok($$CREATE TABLE po_bad (a int) USING quickstep_column WITH (quickstep.bogus = 1)$$,
                 '22023', NULL, 'an unknown quickstep option is refused');
SELECT throws_ok($$ALTER TABLE pt_heap SET (quickstep.sort_key = 'a')$$,
                 '22023', NULL, 'quickstep options on a heap table are refused');
ALTER TABLE po_col RENAME COLUMN t TO u;
SELECT is((SELECT string_agg(name || '=' || value, ', ' ORDER BY name)
           FROM quickstep.column_options WHERE relid = 'po_col'::regclass),
          'encoding_u=lz4, rows_per_block=5000, sort_key=k',
          'RENAME COLUMN: the options naming the column follow it (a dump restores them)');
ALTER TABLE po_col SET (quickstep.index_columns = 'u');
ALTER TABLE po_col RENAME COLUMN u TO w;
SELECT is((SELECT value FROM quickstep.column_options
           WHERE relid = 'po_col'::regclass AND name = 'index_columns'),
          'w', 'index_columns is listed and follows RENAME COLUMN');
SELECT throws_ok($$ALTER TABLE po_col SET (quickstep.index_columns = 'k,k')$$,
                 '22023', NULL, 'an index column listed twice is refused');
CREATE TABLE po_f (f float8) USING quickstep_column;
SELECT throws_ok($$ALTER TABLE po_f SET (quickstep.index_columns = 'f')$$,
                 '22023', NULL, 'index_columns refuses a column that cannot be dictionary-encoded');
ALTER TABLE po_col RESET (quickstep.sort_key, quickstep.rows_per_block, quickstep.encoding_w,
                          quickstep.index_columns);
SELECT is((SELECT count(*) FROM quickstep.column_options WHERE relid = 'po_col'::regclass), 0::bigint,
          'RESET removes them');

SELECT * FROM finish();
ROLLBACK;
