-- quickstep.debug_force_merge (src/merge/force.c): each statement first
-- merges (and seals) the column tables it uses, in its own transaction,
-- where quickstep.merge() could run; the statement then reads the moved
-- rows in their blocks.  The row bodies run with it (sql/column_row_*.sql);
-- this test shows that it merges, and where it does not.
CREATE TABLE fm (id int PRIMARY KEY, v text) USING quickstep_column;
CREATE TABLE fm_heap (id int PRIMARY KEY, v text);
CREATE VIEW fm_state AS
  SELECT delta_rows, main_rows, deleted_rows, blocks, sealed_blocks
    FROM quickstep.column_table_stats('fm');
SHOW quickstep.debug_force_merge;
SET quickstep.debug_force_merge = merge;
INSERT INTO fm SELECT g, 'v' || g FROM generate_series(1, 100) g;
INSERT INTO fm_heap SELECT g, 'v' || g FROM generate_series(1, 100) g;
-- the INSERT's rows were not quiet when it started: still in the delta
TABLE fm_state;
-- a statement that uses fm moves them first, and counts them in the block
SELECT count(*), sum(id) FROM fm;
TABLE fm_state;
-- its DML reaches the moved rows; the next statement merges the new versions
UPDATE fm SET v = v || 'u' WHERE id % 10 = 0;
DELETE FROM fm WHERE id % 7 = 0;
UPDATE fm_heap SET v = v || 'u' WHERE id % 10 = 0;
DELETE FROM fm_heap WHERE id % 7 = 0;
SELECT (SELECT count(*) FROM (TABLE fm EXCEPT ALL TABLE fm_heap) a) AS only_fm,
       (SELECT count(*) FROM (TABLE fm_heap EXCEPT ALL TABLE fm) b) AS only_heap;
TABLE fm_state;
-- merge_seal also seals the open block of an earlier statement
SET quickstep.debug_force_merge = merge_seal;
SELECT count(*) FROM fm;
TABLE fm_state;
SET quickstep.debug_force_merge = merge;

-- not merged: a READ ONLY transaction, a SERIALIZABLE one (merge() refuses
-- both), EXPLAIN without ANALYZE, a statement that does not name the table
INSERT INTO fm VALUES (1000, 'a');
BEGIN READ ONLY;
SELECT count(*) FROM fm;
TABLE fm_state;
COMMIT;
BEGIN ISOLATION LEVEL SERIALIZABLE;
SELECT count(*) FROM fm;
TABLE fm_state;
COMMIT;
EXPLAIN (COSTS OFF) SELECT id FROM fm WHERE id = 1000;
TABLE fm_state;
-- nor while a cursor of this session has the table open (the cursor's
-- snapshot is older than the merge's command: see force.c)
BEGIN;
DECLARE c CURSOR FOR SELECT id FROM fm WHERE id > 95 ORDER BY id;
FETCH 1 FROM c;
SELECT count(*) FROM fm;
TABLE fm_state;
UPDATE fm SET v = 'cursor' WHERE CURRENT OF c;
FETCH 1 FROM c;
CLOSE c;
-- the cursor closed: the same transaction merges again
SELECT count(*) FROM fm;
TABLE fm_state;
SELECT id, v FROM fm WHERE id >= 96 ORDER BY id;
COMMIT;

-- nested statements merge too (PL/pgSQL), and read what they moved
INSERT INTO fm VALUES (2000, 'b');
DO $$
DECLARE n bigint;
BEGIN
  SELECT count(*) INTO n FROM fm;
  RAISE NOTICE 'rows %', n;
  UPDATE fm SET v = 'plpgsql' WHERE id = 2000;
END $$;
SELECT delta_rows, main_rows FROM fm_state;
SELECT v FROM fm WHERE id = 2000;

-- a utility statement naming the table: COPY, CREATE INDEX, VACUUM
INSERT INTO fm VALUES (3000, 'c');
COPY fm (id, v) FROM stdin;
3001	d
\.
TABLE fm_state;
CREATE INDEX fm_v ON fm (v);
TABLE fm_state;

-- off: nothing is merged
RESET quickstep.debug_force_merge;
INSERT INTO fm VALUES (4000, 'e');
SELECT count(*) FROM fm;
SELECT count(*) FROM fm;
TABLE fm_state;
SELECT quickstep.check_table('fm') > 0 AS checked;

-- only a superuser sets it
CREATE ROLE fm_user;
SET ROLE fm_user;
SET quickstep.debug_force_merge = merge;
RESET ROLE;
DROP ROLE fm_user;
DROP VIEW fm_state;
DROP TABLE fm, fm_heap;
