-- THE RULE for the xmin system column: a row a merge moves from the delta
-- into a column block keeps showing its inserter's xid, as a heap tuple
-- does, through later merges into the same open block, seal, VACUUM
-- (FREEZE), VACUUM FULL and CLUSTER (the block's origin xmins:
-- include/column/colblock.h, kind 5).  Before, a moved row showed the
-- merge's xid, then 2.  Every statement runs on the heap twin xh as well;
-- "differ" counts rows whose (id, xmin) the other table does not have.
CREATE TABLE xc (id int, v int) USING quickstep_column
  WITH (autovacuum_enabled = off);
CREATE TABLE xh (id int, v int) WITH (autovacuum_enabled = off);
CREATE FUNCTION xdiff() RETURNS TABLE (rows bigint, differ bigint) LANGUAGE sql AS $$
  SELECT (SELECT count(*) FROM xc),
         (SELECT count(*) FROM ((SELECT id, xmin::text FROM xc EXCEPT SELECT id, xmin::text FROM xh)
                                UNION ALL
                                (SELECT id, xmin::text FROM xh EXCEPT SELECT id, xmin::text FROM xc)) d)
$$;
-- three transactions insert into the delta of xc (and into xh): the same
-- ids get the same inserter in both tables
BEGIN;
INSERT INTO xc SELECT g, g FROM generate_series(1, 300) g;
INSERT INTO xh SELECT g, g FROM generate_series(1, 300) g;
COMMIT;
BEGIN;
INSERT INTO xc SELECT g, g FROM generate_series(301, 600) g;
INSERT INTO xh SELECT g, g FROM generate_series(301, 600) g;
COMMIT;
BEGIN;
INSERT INTO xc SELECT g, g FROM generate_series(601, 900) g;
INSERT INTO xh SELECT g, g FROM generate_series(601, 900) g;
COMMIT;
SELECT * FROM xdiff();
-- the merge moves all 900 into the open block
SELECT quickstep.merge('xc') AS moved;
SELECT (SELECT delta_rows FROM quickstep.column_table_stats('xc')) AS delta_rows;
SELECT * FROM xdiff();
-- the row version check of an ORM: the xmin read before the merge finds
-- the row after it
CREATE TEMP TABLE seen AS SELECT id, xmin AS x FROM xh WHERE id IN (10, 410, 810);
BEGIN;
UPDATE xc SET v = -v FROM seen WHERE xc.id = seen.id AND xc.xmin = seen.x RETURNING xc.id, xc.v;
UPDATE xh SET v = -v FROM seen WHERE xh.id = seen.id AND xh.xmin = seen.x RETURNING xh.id, xh.v;
COMMIT;
-- a second merge appends to the open block: the first merge's rows are
-- copied into its next version and keep their xmin (the updated rows'
-- new versions move with it and show their updater)
BEGIN;
INSERT INTO xc SELECT g, g FROM generate_series(901, 1000) g;
INSERT INTO xh SELECT g, g FROM generate_series(901, 1000) g;
COMMIT;
SELECT quickstep.merge('xc') AS moved;
SELECT * FROM xdiff();
-- index, bitmap and TID fetches read it too
CREATE INDEX xc_id ON xc (id);
CREATE INDEX xh_id ON xh (id);
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT count(*) AS same FROM xc JOIN xh USING (id)
  WHERE xc.id IN (1, 299, 300, 301, 599, 901, 1000) AND xc.xmin = xh.xmin;
SET enable_indexscan = off;
SET enable_bitmapscan = on;
SELECT count(*) AS same FROM xc JOIN xh USING (id)
  WHERE xc.id BETWEEN 295 AND 305 AND xc.xmin = xh.xmin;
RESET enable_indexscan;
RESET enable_bitmapscan;
RESET enable_seqscan;
SELECT xc.xmin = xh.xmin AS same FROM xc, xh
  WHERE xc.ctid = (SELECT ctid FROM xc WHERE id = 555) AND xh.id = 555;
-- a pushed-down filter
SELECT count(*) AS same FROM xc JOIN xh USING (id) WHERE xc.id > 850 AND xc.xmin = xh.xmin;
-- seal, freeze, rewrite
SELECT quickstep.seal('xc') IS NOT NULL AS sealed;
SELECT * FROM xdiff();
VACUUM (FREEZE) xc;
VACUUM (FREEZE) xh;
SELECT * FROM xdiff();
VACUUM FULL xc;
VACUUM FULL xh;
SELECT * FROM xdiff();
CLUSTER xc USING xc_id;
CLUSTER xh USING xh_id;
SELECT * FROM xdiff();
SELECT quickstep.check_table('xc') IS NOT NULL AS checked;
-- a sort key: a sorted seal keeps the rows' TIDs (its TID map), VACUUM
-- FULL gives them new ones in sort order; the origins follow the rows
DROP TABLE xc, xh, seen;
CREATE TABLE xc (id int, v int) USING quickstep_column
  WITH (autovacuum_enabled = off, quickstep.sort_key = 'v');
CREATE TABLE xh (id int, v int) WITH (autovacuum_enabled = off);
BEGIN;
INSERT INTO xc SELECT g, (g * 37) % 101 FROM generate_series(1, 400) g;
INSERT INTO xh SELECT g, (g * 37) % 101 FROM generate_series(1, 400) g;
COMMIT;
BEGIN;
INSERT INTO xc SELECT g, (g * 53) % 97 FROM generate_series(401, 700) g;
INSERT INTO xh SELECT g, (g * 53) % 97 FROM generate_series(401, 700) g;
COMMIT;
SELECT quickstep.merge('xc') AS moved;
SELECT quickstep.seal('xc') IS NOT NULL AS sealed;
SELECT bool_or(sorted) AS sorted FROM quickstep.blocks('xc');
SELECT * FROM xdiff();
VACUUM FULL xc;
SELECT * FROM xdiff();
SELECT quickstep.check_table('xc') IS NOT NULL AS checked;
-- a merge rolled back (ROLLBACK TO, or a worker's merge that failed): its
-- delta rows show xmax 0 as the heap twin's, also once a later reader set
-- the hint bits (before, they then showed the aborted merge's xid)
TRUNCATE xc, xh;
INSERT INTO xc SELECT g, g FROM generate_series(1, 50) g;
INSERT INTO xh SELECT g, g FROM generate_series(1, 50) g;
BEGIN;
SAVEPOINT s;
SELECT quickstep.merge('xc') AS moved;
ROLLBACK TO s;
SELECT count(*) FILTER (WHERE xmax::text <> '0') AS xmax_set, count(*) FROM xc;
COMMIT;
SELECT count(*) FILTER (WHERE xmax::text <> '0') AS xmax_set, count(*) FROM xc;
SELECT count(*) FILTER (WHERE xmax::text <> '0') AS xmax_set, count(*) FROM xc;
SELECT count(*) FILTER (WHERE xmax::text <> '0') AS xmax_set, count(*) FROM xh;
DROP TABLE xc, xh;
DROP FUNCTION xdiff();
