-- The cmin and cmax system columns of a column table (issue 12, f3).  Heap
-- shows a tuple's raw command id (heap_getsysattr): its inserter's cmin
-- until a delete or update writes the deleter's cmax (a lock leaves it, an
-- abort leaves the aborted cmax).  Every statement runs on the heap twin
-- ch as well, in its own transaction at the same command id, and "differ"
-- counts rows whose (id, v, cmin, cmax) the other table does not have.
-- Before, rows a merge moved showed the merge's command (1 below) instead
-- of heap's 0, and then 0 where heap shows a later inserting command.  A
-- block now keeps each moved, sealed or rewritten row's origin command id
-- with its origin xmin (index sub-block kind 5, src/column/README.md
-- section 4.1): those rows show heap's, frozen or not, and so does a
-- bulk load at a later command of its transaction (its block names the
-- load's command as its rows' origin).  Where the stored data cannot agree
-- (the cmax of a rolled back delete, which VACUUM clears) the column table
-- shows 0, and the comments say so.
SET quickstep.column_delta_rows = 0;	-- straight into blocks
CREATE TABLE cc (id int, v int) USING quickstep_column
  WITH (autovacuum_enabled = off);
CREATE TABLE ch (id int, v int) WITH (autovacuum_enabled = off);
CREATE TABLE bump (x int);
CREATE FUNCTION cdiff() RETURNS TABLE (rows bigint, differ bigint) LANGUAGE sql AS $$
  SELECT (SELECT count(*) FROM cc),
         (SELECT count(*) FROM ((SELECT id, v, cmin::text, cmax::text FROM cc
                                 EXCEPT SELECT id, v, cmin::text, cmax::text FROM ch)
                                UNION ALL
                                (SELECT id, v, cmin::text, cmax::text FROM ch
                                 EXCEPT SELECT id, v, cmin::text, cmax::text FROM cc)) d)
$$;
CREATE FUNCTION cids(t regclass) RETURNS TABLE (cmin cid, cmax cid, n bigint) LANGUAGE plpgsql AS $$
BEGIN
  RETURN QUERY EXECUTE format('SELECT cmin, cmax, count(*) FROM %s GROUP BY 1, 2 ORDER BY 1::text, 2::text', t);
END $$;
-- a bulk load at command 2 of its transaction: the block's directory keeps
-- the load's command, heap's tuples their inserter's
BEGIN;
INSERT INTO bump VALUES (1);
INSERT INTO bump VALUES (2);
INSERT INTO cc SELECT g, g FROM generate_series(1, 1000) g;
COMMIT;
BEGIN;
INSERT INTO bump VALUES (1);
INSERT INTO bump VALUES (2);
INSERT INTO ch SELECT g, g FROM generate_series(1, 1000) g;
COMMIT;
SELECT * FROM cids('cc');
SELECT * FROM cdiff();
-- another transaction deletes and updates main rows at commands 1 and 2:
-- cmax is its command (the delete-map entry's, as heap's tuple's); the new
-- version of the updated row (in the delta) has cmin 2
BEGIN;
INSERT INTO bump VALUES (1);
DELETE FROM cc WHERE id = 3;
UPDATE cc SET v = -v WHERE id = 4;
COMMIT;
BEGIN;
INSERT INTO bump VALUES (1);
DELETE FROM ch WHERE id = 3;
UPDATE ch SET v = -v WHERE id = 4;
COMMIT;
SELECT * FROM cdiff();
SELECT id, v, cmin, cmax FROM cc WHERE id IN (4, 5) ORDER BY id;
-- a lock leaves the command id; a rolled back delete leaves its cmax
BEGIN;
INSERT INTO bump VALUES (1);
SELECT id FROM cc WHERE id = 5 FOR UPDATE;
COMMIT;
BEGIN;
INSERT INTO bump VALUES (1);
SELECT id FROM ch WHERE id = 5 FOR UPDATE;
COMMIT;
BEGIN;
INSERT INTO bump VALUES (1);
INSERT INTO bump VALUES (2);
INSERT INTO bump VALUES (3);
DELETE FROM cc WHERE id = 6;
ROLLBACK;
BEGIN;
INSERT INTO bump VALUES (1);
INSERT INTO bump VALUES (2);
INSERT INTO bump VALUES (3);
DELETE FROM ch WHERE id = 6;
ROLLBACK;
SELECT * FROM cdiff();
SELECT id, cmin, cmax FROM cc WHERE id IN (5, 6) ORDER BY id;
SELECT id, cmin, cmax FROM ch WHERE id IN (5, 6) ORDER BY id;
-- rows a merge moves: inserted at command 0 into the delta, moved by a
-- merge at command 1.  Their block's cid is the merge's; they show their
-- delta versions' raw t_cid, 0 here, and id 4's new version, inserted at
-- command 2, shows 2 (it showed 0 when blocks kept no command ids: the 2
-- rows of "differ" then)
SET quickstep.column_delta_rows = 100000;
INSERT INTO cc SELECT g, g FROM generate_series(1001, 1300) g;
INSERT INTO ch SELECT g, g FROM generate_series(1001, 1300) g;
BEGIN;
INSERT INTO bump VALUES (1);
SELECT quickstep.merge('cc') > 0 AS moved;
COMMIT;
SELECT (SELECT delta_rows FROM quickstep.column_table_stats('cc')) AS delta_rows;
SELECT * FROM cids('cc');
SELECT * FROM cdiff();
SELECT id, v, cmin, cmax FROM cc WHERE id = 4;
SELECT id, v, cmin, cmax FROM ch WHERE id = 4;
-- changes of moved rows: the deleter's command, as heap's
BEGIN;
INSERT INTO bump VALUES (1);
DELETE FROM cc WHERE id = 1003;
UPDATE cc SET v = -v WHERE id = 1004;
SELECT id FROM cc WHERE id = 1005 FOR SHARE;
COMMIT;
BEGIN;
INSERT INTO bump VALUES (1);
DELETE FROM ch WHERE id = 1003;
UPDATE ch SET v = -v WHERE id = 1004;
SELECT id FROM ch WHERE id = 1005 FOR SHARE;
COMMIT;
SELECT * FROM cdiff();
-- index and TID fetches read the same
CREATE INDEX cc_id ON cc (id);
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT id, v, cmin, cmax FROM cc WHERE id IN (2, 1002, 1004) ORDER BY id;
RESET enable_bitmapscan;
RESET enable_seqscan;
SELECT id, cmin, cmax FROM cc WHERE ctid = (SELECT ctid FROM cc WHERE id = 1006);
-- a seal carries what each row shows into its new block: sorted on v
-- (the updated row 4 first), every row of the bulk-loaded block and of
-- the merge's block gets an origin, command 2 for the load's rows
ALTER TABLE cc SET (quickstep.sort_key = 'v');
SELECT quickstep.seal('cc') IS NOT NULL AS sealed;
SELECT * FROM cdiff();
-- rows of a second load, not sealed (at command 2: its block names the
-- load's command as its rows' origin), and moved rows inserted at command 1
SET quickstep.column_delta_rows = 0;
BEGIN;
INSERT INTO bump VALUES (1);
INSERT INTO bump VALUES (2);
INSERT INTO cc SELECT g, g FROM generate_series(2001, 2100) g;
COMMIT;
SET quickstep.column_delta_rows = 100000;
BEGIN;
INSERT INTO bump VALUES (1);
INSERT INTO bump VALUES (2);
INSERT INTO ch SELECT g, g FROM generate_series(2001, 2100) g;
COMMIT;
BEGIN;
INSERT INTO bump VALUES (1);
INSERT INTO cc SELECT g, g FROM generate_series(3001, 3050) g;
COMMIT;
BEGIN;
INSERT INTO bump VALUES (1);
INSERT INTO ch SELECT g, g FROM generate_series(3001, 3050) g;
COMMIT;
SELECT quickstep.merge('cc') > 0 AS moved;
SELECT * FROM cdiff();
-- VACUUM (FREEZE) keeps the loaded, moved and sealed rows' commands
-- (their origins; it puts the loader's xid where the directory kept the
-- load's command, for the xmin column).  Where they cannot agree: the
-- rolled back delete's cmax (id 6: 3) goes with the aborted xmax VACUUM
-- clears from its delete-map entry (the row is counted on both sides of
-- "differ").  A rewrite (VACUUM FULL, CLUSTER) keeps what each row
-- showed, as heap keeps each tuple's raw t_cid.
VACUUM (FREEZE) cc;
VACUUM (FREEZE) ch;
SELECT * FROM cids('cc');
SELECT * FROM cids('ch');
SELECT * FROM cdiff();
VACUUM FULL cc;
VACUUM FULL ch;
SELECT * FROM cids('cc');
SELECT * FROM cids('ch');
SELECT * FROM cdiff();
DROP TABLE cc, ch, bump;
DROP FUNCTION cdiff();
DROP FUNCTION cids(regclass);
