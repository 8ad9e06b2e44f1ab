-- Column tables (issue 12): the same statements on a heap table and on a
-- quickstep_column table give the same answers.
--
-- This suite's cluster runs at wal_level = logical, where bulk loads stay
-- in the delta (logical decoding of main blocks does not exist yet), so
-- every statement below works, DML included; main blocks are tested at
-- wal_level = replica by test/perl/070_column_storage.pl and 071.
CREATE SCHEMA column_basic;
SET search_path = column_basic, public;

CREATE TABLE h (id int NOT NULL, k int, t text, n numeric, f float8, d date,
                b bool, v varchar(10), arr int[]);
CREATE TABLE c (LIKE h INCLUDING ALL) USING quickstep_column;
INSERT INTO h SELECT i, i % 10, CASE WHEN i % 5 = 0 THEN NULL ELSE 't' || (i % 37) END,
       (i % 7)::numeric / 4, CASE WHEN i % 9 = 0 THEN 'NaN' ELSE -i / 3.0 END,
       date '2024-02-29' + i % 400, i % 3 = 0, 'v' || i % 11,
       CASE WHEN i % 4 = 0 THEN ARRAY[i, NULL] END
FROM generate_series(1, 5000) i;
INSERT INTO c SELECT * FROM h;
SELECT count(*) FROM c;

-- the same rows, as multisets
SELECT count(*) FROM (SELECT * FROM c EXCEPT ALL SELECT * FROM h) x;
SELECT count(*) FROM (SELECT * FROM h EXCEPT ALL SELECT * FROM c) x;

-- aggregates, NULLs, ordering, grouping: heap's answer, then ours
SELECT k, count(*), count(t), sum(n), min(f), max(f), min(d), max(v), bool_and(b)
FROM h GROUP BY k ORDER BY k;
SELECT k, count(*), count(t), sum(n), min(f), max(f), min(d), max(v), bool_and(b)
FROM c GROUP BY k ORDER BY k;
SELECT id, t, n, f, arr FROM h WHERE t IS NULL AND arr IS NOT NULL ORDER BY id LIMIT 5;
SELECT id, t, n, f, arr FROM c WHERE t IS NULL AND arr IS NOT NULL ORDER BY id LIMIT 5;
SELECT count(DISTINCT t), count(DISTINCT (n, b)) FROM h;
SELECT count(DISTINCT t), count(DISTINCT (n, b)) FROM c;
SELECT f FROM h WHERE f = 'NaN' OR f < -1666 ORDER BY f DESC LIMIT 3;
SELECT f FROM c WHERE f = 'NaN' OR f < -1666 ORDER BY f DESC LIMIT 3;
SELECT id, sum(id) OVER (ORDER BY id ROWS 2 PRECEDING) FROM h WHERE id > 4995;
SELECT id, sum(id) OVER (ORDER BY id ROWS 2 PRECEDING) FROM c WHERE id > 4995;
SELECT count(*) FROM c JOIN h USING (id) WHERE c.t IS NOT DISTINCT FROM h.t;

-- indexes built over main rows answer as sequential scans do
CREATE INDEX c_k ON c (k);
CREATE UNIQUE INDEX c_id ON c (id);
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT id, t FROM c WHERE id BETWEEN 4000 AND 4004;
SELECT id, t FROM c WHERE id BETWEEN 4000 AND 4004;
SELECT id, t FROM h WHERE id BETWEEN 4000 AND 4004 ORDER BY id;
-- no bitmap scan of a column table (the planner uses the index scan)
EXPLAIN (COSTS OFF) SELECT count(*) FROM c WHERE k = 3;
SELECT count(*) FROM c WHERE k = 3;
RESET enable_seqscan;
INSERT INTO c VALUES (17, 0, 'dup');

-- rolled back loads, a savepoint, a later ADD COLUMN
BEGIN;
INSERT INTO c SELECT id + 100000, k, t, n, f, d, b, v, arr FROM h;
SELECT count(*) FROM c;
ROLLBACK;
BEGIN;
SAVEPOINT s;
INSERT INTO c SELECT id + 100000, k, t, n, f, d, b, v, arr FROM h;
ROLLBACK TO s;
INSERT INTO c SELECT id + 200000, k, t, n, f, d, b, v, arr FROM h WHERE id <= 2000;
COMMIT;
SELECT count(*), min(id), max(id) FROM c;
ALTER TABLE c ADD COLUMN extra text DEFAULT 'x';
SELECT extra, count(*) FROM c GROUP BY extra;
SELECT quickstep.check_table('c') >= count(*) FROM c;

-- at wal_level = logical no main block was written: the table has only
-- delta pages (HPL) and its metapage, so DML and TABLESAMPLE work on it
SELECT count(*) FROM c TABLESAMPLE SYSTEM (100);
DELETE FROM c WHERE id IN (10, 4000);
UPDATE c SET k = 99 WHERE id IN (11, 4001);
SELECT id, k FROM c WHERE id BETWEEN 9 AND 12 OR id BETWEEN 3999 AND 4002 ORDER BY id;
SELECT id FROM c WHERE id = 4002 FOR UPDATE;

TRUNCATE c;
SELECT count(*) FROM c;

-- the sequential scan's delta pass skips the blocks' page runs unread: a
-- scan reads each run page once (for its block), not twice
CREATE TABLE skipruns (a int, b text) USING quickstep_column;
INSERT INTO skipruns SELECT i, 'value ' || i FROM generate_series(1, 100000) i;
INSERT INTO skipruns VALUES (-1, 'a delta row');
SET quickstep.enable_pushdown = off;
BEGIN;
SELECT pg_stat_get_xact_blocks_fetched('skipruns'::regclass) AS f0 \gset
SELECT count(*), sum(a) FROM skipruns;
SELECT pg_stat_get_xact_blocks_fetched('skipruns'::regclass) - :f0
	< 1.3 * pg_relation_size('skipruns') / current_setting('block_size')::int AS runs_read_once;
COMMIT;
-- rows added in the runs' place are seen: after a delete and VACUUM
DELETE FROM skipruns WHERE a > 0;
VACUUM skipruns;
INSERT INTO skipruns SELECT i, 'again ' || i FROM generate_series(1, 500) i;
SELECT count(*), sum(a) FROM skipruns;
DECLARE cur SCROLL CURSOR WITH HOLD FOR SELECT a FROM skipruns;
FETCH LAST FROM cur;
FETCH BACKWARD 2 FROM cur;
CLOSE cur;
RESET quickstep.enable_pushdown;

-- an index scan keeps the directory its snapshot sees; rows this
-- transaction loaded in an earlier command and another scan flushed into
-- a block meanwhile are still seen by it
CREATE TABLE dc (id int PRIMARY KEY, v text) USING quickstep_column;
INSERT INTO dc SELECT i, 'old' FROM generate_series(1, 100) i;
SELECT quickstep.merge('dc') AS moved;
BEGIN;
SET LOCAL quickstep.column_delta_rows = 0;
INSERT INTO dc SELECT i, 'new' FROM generate_series(101, 3100) i;
SET LOCAL enable_seqscan = off;
SET LOCAL enable_bitmapscan = off;
SET LOCAL quickstep.enable_pushdown = off;
DECLARE dcur SCROLL CURSOR FOR SELECT id FROM dc WHERE id > 0 ORDER BY id;
FETCH 1 FROM dcur;
RESET enable_seqscan;
SELECT count(*) FROM dc;
MOVE ALL FROM dcur;
FETCH BACKWARD 1 FROM dcur;
COMMIT;
RESET search_path;
SET client_min_messages = warning;
DROP SCHEMA column_basic CASCADE;
RESET client_min_messages;
