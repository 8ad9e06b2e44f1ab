-- Findings of PostgreSQL's core regression suite run with quickstep_column
-- as the default table AM and quickstep.column_delta_rows = 0 (every row a
-- command loads goes into a column block): test/REGRESS_DIFFERENCES.md,
-- section quickstep_column.
CREATE SCHEMA column_gauge;
SET search_path = column_gauge, public;
SET quickstep.column_delta_rows = 0;

-- A loaded row's system columns in INSERT ... RETURNING are the loading
-- transaction's and command's, as for a delta row (core's update test:
-- xmin was 0).
CREATE TABLE r (a int, b text) USING quickstep_column;
INSERT INTO r VALUES (1, 'one')
  RETURNING a, xmin = pg_current_xact_id()::xid AS xmin_ok, cmin, xmax,
            ctid > '(2147483647,65535)'::tid AS in_block;
INSERT INTO r SELECT g, 'x' FROM generate_series(2, 4) g
  RETURNING a, xmin = pg_current_xact_id()::xid AS xmin_ok, xmax;
BEGIN;
INSERT INTO r VALUES (5, 'five');
INSERT INTO r VALUES (6, 'six')
  RETURNING a, xmin = pg_current_xact_id()::xid AS xmin_ok, cmin;
COMMIT;
SELECT a, b, cmin FROM r ORDER BY a;
-- through tuple routing, into a partition with a dropped column
CREATE TABLE rp (a int, b text) PARTITION BY LIST (a);
CREATE TABLE rp1 (a int, q text, b text) USING quickstep_column;
ALTER TABLE rp1 DROP COLUMN q;
ALTER TABLE rp ATTACH PARTITION rp1 FOR VALUES IN (1);
INSERT INTO rp VALUES (1, 'foo')
  RETURNING *, tableoid::regclass, xmin = pg_current_xact_id()::xid AS xmin_ok;

-- A table of no columns keeps its rows in the delta: a column block has
-- at least one column (core's select, join, stats and fast_default tests:
-- "column block 1 ... is corrupt: 0 columns"), also through VACUUM FULL.
CREATE TABLE nocols () USING quickstep_column;
INSERT INTO nocols DEFAULT VALUES;
INSERT INTO nocols SELECT FROM generate_series(1, 3);
SELECT count(*) FROM nocols;
SELECT * FROM nocols n, LATERAL (VALUES (n.*)) v LIMIT 1;
VACUUM FULL nocols;
SELECT count(*) FROM nocols;
BEGIN;
CREATE TABLE t0 () USING quickstep_column;
INSERT INTO t0 DEFAULT VALUES;
ALTER TABLE t0 ADD COLUMN a int DEFAULT 1;
CREATE INDEX ON t0 (a);
UPDATE t0 SET a = NULL;
SELECT * FROM t0;
COMMIT;
ALTER TABLE nocols ADD COLUMN a int DEFAULT 1;
VACUUM FULL nocols;
SELECT a, count(*) FROM nocols GROUP BY a;

-- CLUSTER and VACUUM FULL copy a main row that some snapshot may not see
-- yet into the new table's delta; its values, stored detoasted in its
-- block, are toasted again (core's cluster test: "row is too big").  The
-- prepared transaction keeps the row from counting as visible to all.
CREATE TABLE big (a int, d text) USING quickstep_column;
BEGIN;
SELECT pg_current_xact_id() IS NOT NULL AS holds_xmin;
PREPARE TRANSACTION 'column_gauge_hold';
INSERT INTO big VALUES (1, repeat('xyzzy', 100000));
SELECT a, length(d), ctid > '(2147483647,65535)'::tid AS in_block FROM big;
VACUUM FULL big;
SELECT a, length(d), md5(d) = md5(repeat('xyzzy', 100000)) AS same,
       ctid > '(2147483647,65535)'::tid AS in_block FROM big;
COMMIT PREPARED 'column_gauge_hold';
VACUUM FULL big;
SELECT a, length(d), md5(d) = md5(repeat('xyzzy', 100000)) AS same FROM big;

-- ANALYZE counts the rows its own transaction loaded and has not read yet
-- (core's vacuum test: reltuples 0 where heap has 2)
BEGIN;
CREATE TABLE an (i int) USING quickstep_column;
INSERT INTO an VALUES (1), (1);
ANALYZE an;
SELECT reltuples FROM pg_class WHERE oid = 'an'::regclass;
COMMIT;

RESET quickstep.column_delta_rows;
RESET search_path;
SET client_min_messages = warning;
DROP SCHEMA column_gauge CASCADE;
RESET client_min_messages;
