-- Bitmap heap scans of a column table on the inner side of a nested loop:
-- rescanned per outer row, fetching a few rows of one block then another.
-- Their rows come from the backend's read cache of block readers
-- (readcache.c); checked against a heap twin: rows in several blocks,
-- deleted and updated main rows, rows in the delta, NULLs and long text,
-- a column added after the load (the read cache is dropped and remade).
CREATE SCHEMA column_bitmap_nl;
SET search_path = column_bitmap_nl, public;
SET max_parallel_workers_per_gather = 0;
SET jit = off;

CREATE TABLE c (id int NOT NULL, k int, t text) USING quickstep_column
  WITH (quickstep.rows_per_block = 1000);
CREATE TABLE h (id int NOT NULL, k int, t text);
SET quickstep.column_delta_rows = 0;
INSERT INTO c SELECT i, i % 97, CASE WHEN i % 11 = 0 THEN NULL
  WHEN i % 13 = 0 THEN repeat('x', 3000) || i ELSE 't' || i END
  FROM generate_series(1, 5000) i;
RESET quickstep.column_delta_rows;
INSERT INTO h SELECT * FROM c;
CREATE INDEX c_k ON c (k);
CREATE INDEX h_k ON h (k);
-- deleted and updated main rows, and rows in the delta
DELETE FROM c WHERE id % 7 = 0;
DELETE FROM h WHERE id % 7 = 0;
UPDATE c SET t = 'u' || id WHERE id % 5 = 0;
UPDATE h SET t = 'u' || id WHERE id % 5 = 0;
INSERT INTO c SELECT i, i % 97, 'd' || i FROM generate_series(5001, 5100) i;
INSERT INTO h SELECT i, i % 97, 'd' || i FROM generate_series(5001, 5100) i;
SELECT blocks > 1 AS several_blocks, delta_rows > 0 AS has_delta
  FROM quickstep.column_stats WHERE relid = 'c'::regclass;
ANALYZE c, h;

-- the outer side: a function scan, which enable_seqscan does not touch
CREATE VIEW keys AS SELECT (i * 37) % 97 AS k FROM generate_series(1, 40) i;

SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET enable_indexscan = off;
SET enable_seqscan = off;
SET enable_material = off;
SET enable_memoize = off;
EXPLAIN (COSTS OFF)
SELECT count(*), sum(c.id), sum(length(c.t))
  FROM keys JOIN c ON c.k = keys.k;
-- every column of every fetched row, as multisets, against heap
EXPLAIN (COSTS OFF)
SELECT count(*) AS rows_c FROM keys JOIN c ON c.k = keys.k;
SELECT count(*) AS rows_c FROM keys JOIN c ON c.k = keys.k;
SELECT count(*) AS rows_h FROM keys JOIN h ON h.k = keys.k;
SELECT count(*) AS only_in_c FROM (
  SELECT keys.k, c.id, c.t FROM keys JOIN c ON c.k = keys.k
  EXCEPT ALL
  SELECT keys.k, h.id, h.t FROM keys JOIN h ON h.k = keys.k) d;
SELECT count(*) AS only_in_h FROM (
  SELECT keys.k, h.id, h.t FROM keys JOIN h ON h.k = keys.k
  EXCEPT ALL
  SELECT keys.k, c.id, c.t FROM keys JOIN c ON c.k = keys.k) d;

-- a column added after the load: the fetched rows read its default
ALTER TABLE c ADD COLUMN z int DEFAULT 42;
ALTER TABLE h ADD COLUMN z int DEFAULT 42;
SELECT count(*) AS mismatches FROM (
  SELECT keys.k, c.id, c.t, c.z FROM keys JOIN c ON c.k = keys.k
  EXCEPT ALL
  SELECT keys.k, h.id, h.t, h.z FROM keys JOIN h ON h.k = keys.k) d;

-- in a REPEATABLE READ transaction, across a concurrent-looking change of
-- its own (a later command): the old snapshot's cursor keeps its rows
BEGIN ISOLATION LEVEL REPEATABLE READ;
DECLARE cur CURSOR FOR
  SELECT c.id FROM keys JOIN c ON c.k = keys.k WHERE keys.k = 37 ORDER BY c.id;
FETCH 3 FROM cur;
DELETE FROM c WHERE k = 37;
FETCH ALL FROM cur;
ROLLBACK;

RESET ALL;
SET client_min_messages = warning;
DROP SCHEMA column_bitmap_nl CASCADE;
RESET client_min_messages;
