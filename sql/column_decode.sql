-- test/sql/row_decode.sql on quickstep_column, in a schema of its own:
-- every row the statements load goes into column blocks
-- (quickstep.column_delta_rows = 0), so decoding sees the logical records
-- of block loads and of DML on main rows (the delete map).
\set am quickstep_column
SET quickstep.column_delta_rows = 0;
CREATE SCHEMA column_decode;
SET search_path = column_decode, public;
\i test/sql/row_decode.sql
-- An in-place TRUNCATE (table created in the same transaction) starts the
-- block ids over, so a TID names another row after it: the decoded DELETE
-- must carry the row deleted, not the one a TID fetch cached before the
-- TRUNCATE (review of w5write, finding 1).
SELECT 'init' FROM pg_create_logical_replication_slot('qs_decode_trunc', 'test_decoding');
BEGIN;
CREATE TABLE dtrunc (id int, v text) USING quickstep_column;
ALTER TABLE dtrunc REPLICA IDENTITY FULL;
INSERT INTO dtrunc SELECT g, 'a' || g FROM generate_series(1, 1000) g;
SELECT id, v FROM dtrunc WHERE ctid = '(2147483648,1)';
DELETE FROM dtrunc WHERE id = 1;
TRUNCATE dtrunc;
INSERT INTO dtrunc SELECT g, 'b' || g FROM generate_series(1001, 2000) g;
DELETE FROM dtrunc WHERE id = 1001;
COMMIT;
SELECT data FROM pg_logical_slot_get_changes('qs_decode_trunc', NULL, NULL,
    'include-xids', '0', 'skip-empty-xacts', '1')
  WHERE data LIKE '%DELETE%';
SELECT pg_drop_replication_slot('qs_decode_trunc');
DROP TABLE dtrunc;
RESET search_path;
SET client_min_messages = warning;
DROP SCHEMA column_decode CASCADE;
RESET client_min_messages;
RESET quickstep.column_delta_rows;
