-- ALTER COLUMN TYPE that core carries out without a rewrite but that
-- changes the order a column's values are compared in (src/column/retype.c):
-- a column table's blocks (min/max, dictionaries, sorted blocks) were built
-- in the old order, so the table is rewritten.  Every answer is compared
-- with a heap twin's.  int4 -> oid is binary-coercible (no rewrite by core)
-- and turns negative values into the largest ones.  The collation case,
-- which needs ICU, is column_retype_icu.
CREATE SCHEMA column_retype;
SET search_path = column_retype, public;
SET max_parallel_workers_per_gather = 0;
CREATE TABLE h (id int, v int, s varchar(20));
CREATE TABLE c (id int, v int, s varchar(20)) USING quickstep_column;
INSERT INTO h SELECT g, g - 3000, 'x' || g % 50 FROM generate_series(1, 6000) g;
INSERT INTO c SELECT * FROM h;
SELECT quickstep.merge('c') >= 0 AS merged;
SELECT quickstep.seal('c') >= 0 AS sealed;
SELECT count(*) FROM c WHERE v < 10;
SELECT relfilenode AS c_before FROM pg_class WHERE oid = 'c'::regclass \gset
ALTER TABLE h ALTER COLUMN v TYPE oid;
ALTER TABLE c ALTER COLUMN v TYPE oid;
-- rewritten: a new relfilenode, as VACUUM FULL gives
SELECT relfilenode <> :c_before AS rewritten FROM pg_class WHERE oid = 'c'::regclass;
SELECT (SELECT count(*) FROM h WHERE v < 10) AS heap,
       (SELECT count(*) FROM c WHERE v < 10) AS col;
SELECT (SELECT count(*) FROM h WHERE v > 4294967000::oid) AS heap,
       (SELECT count(*) FROM c WHERE v > 4294967000::oid) AS col;
SELECT (SELECT min(v) FROM h) = (SELECT min(v) FROM c) AS same_min,
       (SELECT max(v) FROM h) = (SELECT max(v) FROM c) AS same_max;
SELECT count(*) FROM (SELECT * FROM h EXCEPT ALL SELECT * FROM c) d;
SELECT count(*) FROM (SELECT * FROM c EXCEPT ALL SELECT * FROM h) d;
SELECT quickstep.check_table('c');
-- varchar(20) -> text keeps the order: no rewrite
SELECT relfilenode AS c_before FROM pg_class WHERE oid = 'c'::regclass \gset
ALTER TABLE c ALTER COLUMN s TYPE text;
SELECT relfilenode = :c_before AS kept FROM pg_class WHERE oid = 'c'::regclass;

-- a block sorted on the column (binary search on its runs)
CREATE TABLE cs USING quickstep_column WITH (quickstep.sort_key = 'v')
  AS SELECT id, (id * 7919) % 6000 - 3000 AS v FROM generate_series(1, 6000) id;
CREATE TABLE hs AS SELECT * FROM cs;
ALTER TABLE cs ALTER COLUMN v TYPE oid;
ALTER TABLE hs ALTER COLUMN v TYPE oid;
SELECT (SELECT count(*) FROM hs WHERE v BETWEEN 100 AND 200) AS heap,
       (SELECT count(*) FROM cs WHERE v BETWEEN 100 AND 200) AS col;
SELECT (SELECT count(*) FROM hs WHERE v >= 4294966000::oid) AS heap,
       (SELECT count(*) FROM cs WHERE v >= 4294966000::oid) AS col;

-- in a transaction that wrote the table first: its rows stay, rollback
-- restores the old type with the old blocks
CREATE TABLE ct (id int, v int) USING quickstep_column;
INSERT INTO ct SELECT g, g - 50 FROM generate_series(1, 100) g;
SELECT quickstep.merge('ct') >= 0 AS merged;
BEGIN;
INSERT INTO ct VALUES (101, -1000), (102, 1000);
DELETE FROM ct WHERE id = 1;
ALTER TABLE ct ALTER COLUMN v TYPE oid;
SELECT count(*), count(*) FILTER (WHERE v > 1000) AS above FROM ct;
ROLLBACK;
SELECT count(*), count(*) FILTER (WHERE v > 10) AS above FROM ct;
BEGIN;
INSERT INTO ct VALUES (101, -1000), (102, 1000);
ALTER TABLE ct ALTER COLUMN v TYPE oid;
COMMIT;
SELECT count(*), count(*) FILTER (WHERE v > 1000) AS above FROM ct;
SELECT quickstep.check_table('ct');

-- a partitioned table with a column partition and a heap partition
CREATE TABLE p (id int, v int) PARTITION BY RANGE (id);
CREATE TABLE p1 PARTITION OF p FOR VALUES FROM (0) TO (1000) USING quickstep_column;
CREATE TABLE p2 PARTITION OF p FOR VALUES FROM (1000) TO (2000);
INSERT INTO p SELECT g, g - 1000 FROM generate_series(0, 1999) g;
SELECT quickstep.merge('p1') >= 0 AS merged;
SELECT relfilenode AS p1_before FROM pg_class WHERE oid = 'p1'::regclass \gset
ALTER TABLE p ALTER COLUMN v TYPE oid;
SELECT relfilenode <> :p1_before AS rewritten FROM pg_class WHERE oid = 'p1'::regclass;
SELECT count(*) FILTER (WHERE v < 500) AS low, count(*) FILTER (WHERE v > 500) AS high FROM p1;
SELECT quickstep.check_table('p1');
-- typed tables: ALTER TYPE … ALTER ATTRIBUTE … CASCADE reaches them
CREATE TYPE comp AS (id int, v int);
CREATE TABLE tt OF comp USING quickstep_column;
CREATE TABLE ht OF comp;
INSERT INTO tt SELECT g, g - 50 FROM generate_series(1, 100) g;
INSERT INTO ht SELECT * FROM tt;
SELECT quickstep.merge('tt') >= 0 AS merged;
ALTER TYPE comp ALTER ATTRIBUTE v TYPE oid CASCADE;
SELECT (SELECT count(*) FROM ht WHERE v < 10) AS heap,
       (SELECT count(*) FROM tt WHERE v < 10) AS col;
-- an index and a CHECK constraint on the column: core rebuilds and checks
-- them (reading the blocks) before the rewrite, without trusting their
-- order; so does a ddl_command_end event trigger that reads the table
CREATE TABLE ci (id int, v int CHECK (v <> 123456789)) USING quickstep_column;
CREATE TABLE hi (id int, v int CHECK (v <> 123456789));
INSERT INTO ci SELECT g, g - 500 FROM generate_series(1, 1000) g;
INSERT INTO hi SELECT * FROM ci;
SELECT quickstep.merge('ci') >= 0 AS merged;
CREATE INDEX ci_v ON ci (v);
CREATE INDEX hi_v ON hi (v);
CREATE FUNCTION count_ci() RETURNS event_trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE NOTICE 'ci rows with v < 100: %', (SELECT count(*) FROM ci WHERE v < 100);
END $$;
CREATE EVENT TRIGGER count_ci ON ddl_command_end WHEN TAG IN ('ALTER TABLE')
  EXECUTE FUNCTION count_ci();
ALTER TABLE ci ALTER COLUMN v TYPE oid;
DROP EVENT TRIGGER count_ci;
ALTER TABLE hi ALTER COLUMN v TYPE oid;
SELECT (SELECT count(*) FROM hi WHERE v < 100) AS heap,
       (SELECT count(*) FROM ci WHERE v < 100) AS col;
SET enable_seqscan = off;
SELECT (SELECT count(*) FROM hi WHERE v > 4294966000::oid) AS heap,
       (SELECT count(*) FROM ci WHERE v > 4294966000::oid) AS col;
RESET enable_seqscan;
-- a savepoint rolled back after a rewrite
BEGIN;
SAVEPOINT s;
ALTER TABLE ci ALTER COLUMN v TYPE int4;
SELECT count(*) FILTER (WHERE v < 100) FROM ci;
ROLLBACK TO SAVEPOINT s;
SELECT count(*) FILTER (WHERE v < 100) FROM ci;
COMMIT;
SELECT quickstep.check_table('ci');

-- a tablespace move in the same statement copies the blocks as they are
SET allow_in_place_tablespaces = true;
CREATE TABLESPACE column_retype_ts LOCATION '';
CREATE TABLE cts (id int, v int) USING quickstep_column;
INSERT INTO cts SELECT g, g - 500 FROM generate_series(1, 1000) g;
SELECT quickstep.merge('cts') >= 0 AS merged;
ALTER TABLE cts ALTER COLUMN v TYPE oid, SET TABLESPACE column_retype_ts;
SELECT count(*) FILTER (WHERE v < 100) AS low FROM cts;
DROP TABLE cts;
DROP TABLESPACE column_retype_ts;

-- a foreign table's column table child
CREATE FOREIGN DATA WRAPPER column_retype_fdw;
CREATE SERVER column_retype_srv FOREIGN DATA WRAPPER column_retype_fdw;
CREATE FOREIGN TABLE ft (id int, v int) SERVER column_retype_srv;
CREATE TABLE fc () INHERITS (ft) USING quickstep_column;
INSERT INTO fc SELECT g, g - 500 FROM generate_series(1, 1000) g;
SELECT quickstep.merge('fc') >= 0 AS merged;
ALTER FOREIGN TABLE ft ALTER COLUMN v TYPE oid;
SELECT count(*) FILTER (WHERE v < 100) AS low FROM fc;
DROP FOREIGN TABLE ft CASCADE;
DROP SERVER column_retype_srv;
DROP FOREIGN DATA WRAPPER column_retype_fdw;

-- core's errors come first and unchanged
ALTER TABLE ONLY p ALTER COLUMN v TYPE int8;
CREATE TYPE comp2 AS (id int, v int);
CREATE TABLE tt2 OF comp2 USING quickstep_column;
ALTER TYPE comp2 ALTER ATTRIBUTE v TYPE oid;
CREATE ROLE column_retype_other;
GRANT USAGE ON SCHEMA column_retype TO column_retype_other;
SET ROLE column_retype_other;
ALTER TABLE column_retype.ci ALTER COLUMN v TYPE int8;
RESET ROLE;
REVOKE USAGE ON SCHEMA column_retype FROM column_retype_other;
DROP ROLE column_retype_other;
DROP SCHEMA column_retype CASCADE;
