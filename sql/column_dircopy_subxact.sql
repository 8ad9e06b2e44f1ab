-- A backend's directory copy (src/column/README.md section 7.1) after
-- ROLLBACK TO SAVEPOINT: a merge rolled back in a subtransaction leaves its
-- new version of the open block aborted with no directory change, and the
-- statement after ROLLBACK TO runs with the failed statement's command id,
-- so a collapse kept for the command must be dropped then (review12 F1:
-- without it the open block vanished from blocks(), check_table counted 200
-- of 300 rows and ANALYZE set reltuples to 100 of 200).
SET quickstep.column_delta_rows = 100000;
-- statements after merge() in its transaction read and change the rows it
-- moved: refused by default (src/merge/README.md §2), allowed for this test
SET quickstep.debug_merge_hold = on;
CREATE TABLE dcs (id int PRIMARY KEY, v int) USING quickstep_column
  WITH (quickstep.rows_per_block = 1000, autovacuum_enabled = off);
INSERT INTO dcs SELECT g, g FROM generate_series(1, 100) g;
SELECT quickstep.merge('dcs') AS merged;
INSERT INTO dcs SELECT g, g FROM generate_series(101, 200) g;
BEGIN;
SAVEPOINT s;
DO $$
BEGIN
  RAISE NOTICE 'merged %', quickstep.merge('dcs');
  PERFORM count(*) FROM quickstep.blocks('dcs');
  RAISE EXCEPTION 'roll the merge back';
END $$;
ROLLBACK TO s;
SELECT block_id, state, rows FROM quickstep.blocks('dcs');
SELECT quickstep.check_table('dcs');
SELECT count(*), sum(v) FROM dcs;
ANALYZE dcs;
COMMIT;
SELECT reltuples FROM pg_class WHERE relname = 'dcs';
SELECT quickstep.check_table('dcs');
DROP TABLE dcs;
RESET quickstep.column_delta_rows;
