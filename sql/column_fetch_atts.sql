-- Index, bitmap and TID scans of a column table decode only the attributes
-- their plan node reads (src/column/fetchatts.c), and their scans never get
-- a physical target list (src/scan/planner.c, no_physical_tlist), so an
-- Aggregate over an index scan names its columns too.  Every answer is
-- compared with a heap twin's, for the shapes where a row must come whole:
-- whole-row references, RETURNING, UPDATE and DELETE through an index scan
-- (the columns not named must survive), unprojected scans.
CREATE SCHEMA column_fetch_atts;
SET search_path = column_fetch_atts, public;
SET max_parallel_workers_per_gather = 0;
SET quickstep.column_delta_rows = 0;
CREATE TABLE h (id int, a int, big text, b int, d date, n numeric(8,2));
INSERT INTO h SELECT g, g % 100, repeat(md5(g::text), 8), g % 7,
  date '2020-01-01' + g % 365, (g % 1000) / 10.0
  FROM generate_series(1, 20000) g;
CREATE TABLE c USING quickstep_column AS SELECT * FROM h;
CREATE INDEX ON h (id);
CREATE INDEX ON c (id);
CREATE INDEX ON h (a, b);
CREATE INDEX ON c (a, b);
ANALYZE h, c;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
-- the scan names only what it reads, below an Aggregate too
EXPLAIN (VERBOSE, COSTS OFF) SELECT sum(n) FROM c WHERE a = 5 AND b = 3 AND d > '2020-03-01';
EXPLAIN (VERBOSE, COSTS OFF) SELECT b FROM c WHERE id = 7;
CREATE FUNCTION same(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  hc text;
  cc text;
BEGIN
  EXECUTE format('SELECT string_agg(x::text, ''|'' ORDER BY x::text) FROM (%s) x', replace(q, '$T', 'h')) INTO hc;
  EXECUTE format('SELECT string_agg(x::text, ''|'' ORDER BY x::text) FROM (%s) x', replace(q, '$T', 'c')) INTO cc;
  RETURN CASE WHEN hc IS NOT DISTINCT FROM cc THEN 'same' ELSE 'DIFFERS' END;
END $$;
SELECT q, same(q) FROM (VALUES
  ($$SELECT b FROM $T WHERE id IN (5, 9000, 19999)$$),
  ($$SELECT sum(n), count(d) FROM $T WHERE a = 5 AND b = 3 AND d > '2020-03-01'$$),
  ($$SELECT t FROM $T t WHERE id BETWEEN 100 AND 110$$),
  ($$SELECT * FROM $T WHERE id BETWEEN 100 AND 110$$),
  ($$SELECT row_to_json(t) FROM $T t WHERE a = 7 AND b = 0$$),
  ($$SELECT id, length(big) FROM $T WHERE a = 1 AND b = 1 ORDER BY id$$),
  ($$SELECT max(d) FROM $T WHERE id < 500 GROUP BY b$$),
  ($$SELECT (SELECT sum(n) FROM $T i WHERE i.a = o.a AND i.b = o.b) FROM $T o WHERE o.id < 20$$),
  ($$SELECT ctid IS NOT NULL, b FROM $T WHERE id = 77$$)) AS t(q);
-- a nested loop's inner index scan outputs its index key (t.id for the
-- join clause the index took over): no one reads it, so it is not decoded,
-- unless the join or a plan above names it
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET enable_material = off;
EXPLAIN (VERBOSE, COSTS OFF) SELECT sum(i.n) FROM c o JOIN c i ON i.id = o.id + 1 WHERE o.id < 30;
SELECT q, same(q) FROM (VALUES
  ($$SELECT o.id, i.b, i.n FROM $T o JOIN $T i ON i.id = o.id + 1 WHERE o.id < 30$$),
  ($$SELECT i.id, i.d FROM $T o JOIN $T i ON i.id = o.id + 3 WHERE o.id < 30$$),
  ($$SELECT count(*) FROM $T o WHERE o.id < 50 AND EXISTS (SELECT 1 FROM $T i WHERE i.id = o.id * 2)$$),
  ($$SELECT o.id, i.id IS NULL, i.b FROM $T o LEFT JOIN $T i ON i.id = o.id + 19990 WHERE o.id < 20$$),
  ($$SELECT o.id, i FROM $T o JOIN $T i ON i.id = o.id + 5 WHERE o.id < 10$$),
  ($$SELECT o.id FROM $T o JOIN $T i ON i.id = o.id + 7 AND i.b + o.b > 5 WHERE o.id < 40$$),
  -- the join's filter is the only reader of the inner column (review
  -- helper-193: dropping the filter from the walk passed the cases above)
  ($$SELECT o.id FROM $T o LEFT JOIN $T i ON i.id = o.id + 19990 WHERE i.n IS NULL AND o.id < 40$$),
  ($$SELECT o.id FROM $T o LEFT JOIN $T i ON i.id = o.id + 1 WHERE i.b IS DISTINCT FROM 3 AND o.id < 40$$)) AS t(q);
RESET enable_hashjoin;
RESET enable_mergejoin;
RESET enable_material;
-- bitmap and TID scans
SET enable_indexscan = off;
SET enable_bitmapscan = on;
EXPLAIN (VERBOSE, COSTS OFF) SELECT sum(n) FROM c WHERE a = 5 AND b = 3;
SELECT q, same(q) FROM (VALUES
  ($$SELECT sum(n), min(big) FROM $T WHERE a = 5 AND b = 3$$),
  ($$SELECT t FROM $T t WHERE a = 9 AND b = 2$$)) AS t(q);
-- a bitmap page that needs no recheck is decoded without the columns only
-- bitmapqualorig reads (a above); a hash index asks for a recheck of every
-- row, and its index scan rechecks too: those read them
-- (a nested loop over two bitmap heap scans, the inner one outputting
-- i.n, i.a, i.b and rechecking i.a = o.a AND i.b = o.b; no EXPLAIN here:
-- PG 18 prints the recheck's operands the other way round)
CREATE INDEX ON h USING hash (d);
CREATE INDEX ON c USING hash (d);
SELECT q, same(q) FROM (VALUES
  ($$SELECT sum(i.n) FROM $T o JOIN $T i ON i.a = o.a AND i.b = o.b WHERE o.id < 9$$),
  ($$SELECT sum(n), count(*) FROM $T WHERE d = '2020-03-03'$$),
  ($$SELECT sum(i.n), count(*) FROM $T o JOIN $T i ON i.d = o.d WHERE o.id < 4$$),
  -- a BitmapOr of the btree (no recheck) and the hash index (recheck):
  -- pages of both kinds in one scan, so a "no recheck" mark must not
  -- outlive its row (review helper-193)
  ($$SELECT id, n FROM $T WHERE a IN (5, 6) OR d = '2020-03-03'$$)) AS t(q);
-- lossy and exact pages in one bitmap scan (work_mem's least: 700,000 rows
-- need more pages than the bitmap keeps exactly)
CREATE TABLE hl (id int, a int, n int);
INSERT INTO hl SELECT g, g % 1000, g % 7 FROM generate_series(1, 700000) g;
CREATE TABLE cl USING quickstep_column AS SELECT * FROM hl;
CREATE INDEX ON hl (a);
CREATE INDEX ON cl (a);
ANALYZE hl, cl;
SET work_mem = '64kB';
SELECT q, same(q) FROM (VALUES
  ($$SELECT count(*), sum(n) FROM $Tl WHERE a < 20$$),
  ($$SELECT id, n FROM $Tl WHERE a IN (3, 700) AND id % 1000 <> 0$$)) AS t(q);
RESET work_mem;
DROP TABLE hl, cl;
SET enable_bitmapscan = off;
RESET enable_indexscan;
SELECT q, same(q) FROM (VALUES
  ($$SELECT sum(n), count(*) FROM $T WHERE d = '2020-03-03'$$),
  ($$SELECT sum(i.n), count(*) FROM $T o JOIN $T i ON i.d = o.d WHERE o.id < 4$$)) AS t(q);
DROP INDEX h_d_idx, c_d_idx;
SET enable_bitmapscan = on;
SELECT (SELECT b FROM c WHERE ctid = (SELECT ctid FROM c WHERE id = 1234)) AS col,
       (SELECT b FROM h WHERE id = 1234) AS heap;
-- writes through an index scan keep the columns they do not name
SET enable_bitmapscan = off;
UPDATE h SET b = b + 100 WHERE id BETWEEN 200 AND 260;
UPDATE c SET b = b + 100 WHERE id BETWEEN 200 AND 260;
SELECT q, same(q) FROM (VALUES
  ($$SELECT * FROM $T WHERE id BETWEEN 190 AND 270$$)) AS t(q);
CREATE TABLE ret (am text, r text);
WITH d AS (DELETE FROM h WHERE id BETWEEN 300 AND 305 RETURNING *)
INSERT INTO ret SELECT 'heap', string_agg(format('%s/%s/%s', id, length(big), n), ',' ORDER BY id) FROM d;
WITH d AS (DELETE FROM c WHERE id BETWEEN 300 AND 305 RETURNING *)
INSERT INTO ret SELECT 'column', string_agg(format('%s/%s/%s', id, length(big), n), ',' ORDER BY id) FROM d;
SELECT count(DISTINCT r) AS distinct_returning, min(r) FROM ret;
-- an index scan feeding UPDATE … FROM, and SELECT … FOR UPDATE
UPDATE h SET n = h.n + 1 FROM (SELECT id FROM h WHERE id BETWEEN 400 AND 420) s WHERE h.id = s.id;
UPDATE c SET n = c.n + 1 FROM (SELECT id FROM c WHERE id BETWEEN 400 AND 420) s WHERE c.id = s.id;
SELECT q, same(q) FROM (VALUES
  ($$SELECT * FROM $T WHERE id BETWEEN 395 AND 425$$),
  ($$SELECT b FROM $T WHERE id BETWEEN 500 AND 505 FOR UPDATE$$)) AS t(q);
SELECT count(*) FROM (SELECT * FROM h EXCEPT ALL SELECT * FROM c) x;
SELECT quickstep.check_table('c') IS NOT NULL AS checked;
RESET enable_seqscan;
RESET enable_bitmapscan;
-- sequential scans (QuickstepScan off) and TID range scans decode only
-- what their node reads too (col_decode_batch with the slot's want)
SET quickstep.enable_pushdown = off;
SET enable_indexscan = off;
SET enable_bitmapscan = off;
EXPLAIN (VERBOSE, COSTS OFF) SELECT sum(n) FROM c WHERE b = 3;
EXPLAIN (VERBOSE, COSTS OFF) SELECT max(d) FROM c WHERE ctid > '(0,0)';
SELECT q, same(q) FROM (VALUES
  ($$SELECT sum(n), count(d) FROM $T WHERE b = 3$$),
  ($$SELECT id, length(big) FROM $T WHERE d = '2020-02-02'$$),
  ($$SELECT t FROM $T t WHERE a = 9 AND b = 2$$),
  ($$SELECT * FROM $T WHERE id BETWEEN 100 AND 110$$),
  ($$SELECT b FROM $T WHERE id BETWEEN 500 AND 505 FOR UPDATE$$),
  ($$SELECT (SELECT max(n) FROM $T i WHERE i.b = o.b AND i.id < 300) FROM $T o WHERE o.id < 5$$),
  ($$SELECT sum(n), count(big), max(d) FROM $T WHERE ctid > '(0,0)'$$),
  ($$SELECT t FROM $T t WHERE ctid > '(0,0)' AND id < 20$$)) AS t(q);
-- writes through a sequential scan keep the columns they do not name
UPDATE h SET b = b + 1000 WHERE a = 3;
UPDATE c SET b = b + 1000 WHERE a = 3;
TRUNCATE ret;
WITH d AS (DELETE FROM h WHERE a = 4 AND b = 4 RETURNING *)
INSERT INTO ret SELECT 'heap', string_agg(format('%s/%s/%s', id, length(big), n), ',' ORDER BY id) FROM d;
WITH d AS (DELETE FROM c WHERE a = 4 AND b = 4 RETURNING *)
INSERT INTO ret SELECT 'column', string_agg(format('%s/%s/%s', id, length(big), n), ',' ORDER BY id) FROM d;
SELECT count(DISTINCT r) AS distinct_returning, count(*) FROM ret;
BEGIN;
DECLARE ch CURSOR FOR SELECT b FROM h WHERE a = 6 AND id < 1000 ORDER BY id FOR UPDATE;
DECLARE cc CURSOR FOR SELECT b FROM c WHERE a = 6 AND id < 1000 ORDER BY id FOR UPDATE;
FETCH 2 FROM ch;
FETCH 2 FROM cc;
UPDATE h SET n = -1 WHERE CURRENT OF ch;
UPDATE c SET n = -1 WHERE CURRENT OF cc;
-- a cursor over the sequential scan itself (execCurrentOf reads its slot)
DECLARE sh CURSOR FOR SELECT b FROM h WHERE id = 806;
DECLARE sc CURSOR FOR SELECT b FROM c WHERE id = 806;
EXPLAIN (COSTS OFF) SELECT b FROM c WHERE id = 806;
FETCH sh;
FETCH sc;
UPDATE h SET n = -2, big = 'x' WHERE CURRENT OF sh;
UPDATE c SET n = -2, big = 'x' WHERE CURRENT OF sc;
COMMIT;
SELECT count(*) FROM (SELECT * FROM h EXCEPT ALL SELECT * FROM c) x;
SELECT count(*) FROM (SELECT * FROM c EXCEPT ALL SELECT * FROM h) x;
RESET enable_indexscan;
RESET enable_bitmapscan;
RESET quickstep.enable_pushdown;
DROP SCHEMA column_fetch_atts CASCADE;
