--
-- Row layout :am (set by the caller, sql/<layout>_dml.sql): the access
-- method exists; INSERT / COPY / UPDATE / DELETE / upsert / row locks give
-- the same rows as heap.
--
SELECT amtype, amhandler::text LIKE 'quickstep.%_handler' AS ours FROM pg_am WHERE amname = :'am';

-- one workload, run on a heap table and on a table of the layout
CREATE FUNCTION nsm_workload(tab text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format('INSERT INTO %I SELECT g, ''v'' || g, g * 1.5, NULL FROM generate_series(1, 3000) g', tab);
  EXECUTE format('UPDATE %I SET v = v || ''-u'' WHERE id %% 3 = 0', tab);
  EXECUTE format('UPDATE %I SET n = n * 2, v = repeat(v, 40) WHERE id %% 11 = 0', tab);  -- grows: other pages
  EXECUTE format('DELETE FROM %I WHERE id %% 5 = 0', tab);
  EXECUTE format('UPDATE %I SET id = id + 100000 WHERE id BETWEEN 100 AND 200', tab);
  EXECUTE format('INSERT INTO %I VALUES (-1, NULL, NULL, NULL), (-2, '''', 0, ''{1,2}'')', tab);
  EXECUTE format('UPDATE %I SET arr = ARRAY[id, id] WHERE id %% 7 = 1', tab);
  EXECUTE format('DELETE FROM %I WHERE id %% 13 = 0 RETURNING id', tab);
END $$;

CREATE TABLE h (id int, v text, n numeric, arr int[]) USING heap;
CREATE TABLE q (id int, v text, n numeric, arr int[]) USING :am;
SELECT nsm_workload('h');
SELECT nsm_workload('q');

SELECT count(*), sum(id), sum(n), sum(length(v)), count(arr) FROM h;
SELECT count(*), sum(id), sum(n), sum(length(v)), count(arr) FROM q;
SELECT (SELECT count(*) FROM (TABLE h EXCEPT ALL TABLE q) a) AS only_heap,
       (SELECT count(*) FROM (TABLE q EXCEPT ALL TABLE h) b) AS only_nsm;
SELECT (SELECT md5(string_agg(t::text, '|' ORDER BY id)) FROM h t) =
       (SELECT md5(string_agg(t::text, '|' ORDER BY id)) FROM q t) AS same_checksum;

-- RETURNING, and updates inside one transaction see their own changes
BEGIN;
UPDATE q SET v = 'x' WHERE id = 1 RETURNING id, v;
UPDATE q SET v = v || 'y' WHERE id = 1 RETURNING id, v;
DELETE FROM q WHERE id = 1 RETURNING id, v;
SELECT count(*) FROM q WHERE id = 1;
ROLLBACK;
SELECT id, v FROM q WHERE id = 1;

-- savepoints
BEGIN;
INSERT INTO q VALUES (-10, 'sp');
SAVEPOINT s1;
UPDATE q SET v = 'sp2' WHERE id = -10;
ROLLBACK TO s1;
SELECT id, v FROM q WHERE id = -10;
SAVEPOINT s2;
DELETE FROM q WHERE id = -10;
RELEASE s2;
SELECT count(*) FROM q WHERE id = -10;
COMMIT;

-- COPY (multi_insert)
CREATE TABLE qc (id int, v text) USING :am;
CREATE TABLE hc (id int, v text) USING heap;
COPY qc FROM STDIN;
1	one
2	two
3	\N
\.
COPY qc (id) FROM PROGRAM 'seq 10 5009';
COPY hc FROM STDIN;
1	one
2	two
3	\N
\.
COPY hc (id) FROM PROGRAM 'seq 10 5009';
SELECT count(*), sum(id), count(v) FROM qc;
SELECT (SELECT count(*) FROM (TABLE hc EXCEPT ALL TABLE qc) a) AS only_heap,
       (SELECT count(*) FROM (TABLE qc EXCEPT ALL TABLE hc) b) AS only_nsm;
SELECT * FROM qc WHERE id < 5 ORDER BY id;

-- INSERT ... SELECT from the table itself, and a wide row
INSERT INTO qc SELECT id + 10000, v FROM qc WHERE id < 100;
SELECT count(*) FROM qc;
INSERT INTO qc VALUES (0, repeat('w', 7000));
SELECT id, length(v) FROM qc WHERE id = 0;

-- ON CONFLICT (speculative insertion)
CREATE TABLE qu (k int PRIMARY KEY, v text, hits int DEFAULT 0) USING :am;
CREATE TABLE hu (k int PRIMARY KEY, v text, hits int DEFAULT 0) USING heap;
INSERT INTO qu SELECT g, 'v' || g FROM generate_series(1, 100) g;
INSERT INTO hu SELECT g, 'v' || g FROM generate_series(1, 100) g;
INSERT INTO qu SELECT g, 'n' || g FROM generate_series(50, 150) g
  ON CONFLICT (k) DO UPDATE SET hits = qu.hits + 1, v = excluded.v;
INSERT INTO hu SELECT g, 'n' || g FROM generate_series(50, 150) g
  ON CONFLICT (k) DO UPDATE SET hits = hu.hits + 1, v = excluded.v;
INSERT INTO qu SELECT g, 'z' FROM generate_series(140, 160) g ON CONFLICT DO NOTHING;
INSERT INTO hu SELECT g, 'z' FROM generate_series(140, 160) g ON CONFLICT DO NOTHING;
INSERT INTO qu VALUES (1, 'w') ON CONFLICT (k) DO UPDATE SET v = 'cond' WHERE qu.hits > 0;
INSERT INTO hu VALUES (1, 'w') ON CONFLICT (k) DO UPDATE SET v = 'cond' WHERE hu.hits > 0;
SELECT count(*), sum(k), sum(hits), count(*) FILTER (WHERE v = 'z') FROM qu;
SELECT (SELECT count(*) FROM (TABLE hu EXCEPT ALL TABLE qu) a) AS only_heap,
       (SELECT count(*) FROM (TABLE qu EXCEPT ALL TABLE hu) b) AS only_nsm;
INSERT INTO qu VALUES (1, 'dup');
INSERT INTO qu VALUES (2, 'a'), (2, 'b') ON CONFLICT (k) DO UPDATE SET v = excluded.v;
-- DO NOTHING under REPEATABLE READ / SERIALIZABLE checks that the conflicting
-- row is visible or our own (its xmin, read from the table's own slot kind):
-- a row the same statement inserted is no serialization failure
-- (PostgreSQL's isolation spec insert-conflict-do-nothing-2)
BEGIN ISOLATION LEVEL REPEATABLE READ;
INSERT INTO qu VALUES (500, 'rr1'), (500, 'rr2') ON CONFLICT DO NOTHING;
COMMIT;
BEGIN ISOLATION LEVEL SERIALIZABLE;
INSERT INTO qu VALUES (501, 'sr1'), (501, 'sr2') ON CONFLICT DO NOTHING;
COMMIT;
SELECT k, v FROM qu WHERE k >= 500 ORDER BY k;

-- row locks in all four strengths, NOWAIT and SKIP LOCKED (single session)
BEGIN;
SELECT k FROM qu WHERE k = 1 FOR KEY SHARE;
SELECT k FROM qu WHERE k = 1 FOR SHARE;
SELECT k FROM qu WHERE k = 1 FOR NO KEY UPDATE;
SELECT k FROM qu WHERE k = 1 FOR UPDATE;
SELECT k FROM qu WHERE k = 1 FOR UPDATE NOWAIT;
SELECT k FROM qu WHERE k <= 3 ORDER BY k FOR UPDATE SKIP LOCKED;
UPDATE qu SET v = 'locked-then-updated' WHERE k = 1;
COMMIT;
SELECT k, v FROM qu WHERE k = 1;

-- foreign keys (FOR KEY SHARE of the referenced row)
CREATE TABLE qp (id int PRIMARY KEY) USING :am;
CREATE TABLE qch (id int REFERENCES qp ON DELETE CASCADE, x int) USING :am;
INSERT INTO qp SELECT generate_series(1, 10);
INSERT INTO qch SELECT g % 10 + 1, g FROM generate_series(1, 100) g;
INSERT INTO qch VALUES (11, 0);
DELETE FROM qp WHERE id <= 2;
SELECT count(*) FROM qch;
UPDATE qp SET id = 100 WHERE id = 3;

-- partitioned table with rows moving between partitions of the layout
CREATE TABLE qpart (a int, b text) PARTITION BY RANGE (a);
CREATE TABLE qpart1 PARTITION OF qpart FOR VALUES FROM (0) TO (100) USING :am;
CREATE TABLE qpart2 PARTITION OF qpart FOR VALUES FROM (100) TO (200) USING :am;
INSERT INTO qpart SELECT g, 'p' || g FROM generate_series(0, 199) g;
UPDATE qpart SET a = a + 100 WHERE a < 10;
SELECT tableoid::regclass, count(*) FROM qpart GROUP BY 1 ORDER BY 1;

-- the record limit of a page is heap's (291)
CREATE TABLE qnarrow () USING :am;
CREATE TABLE hnarrow () USING heap;
INSERT INTO qnarrow SELECT FROM generate_series(1, 1000);
INSERT INTO hnarrow SELECT FROM generate_series(1, 1000);
SELECT max((ctid::text::point)[1]) AS max_offset, count(DISTINCT (ctid::text::point)[0]) AS pages FROM qnarrow;
SELECT max((ctid::text::point)[1]) AS max_offset, count(DISTINCT (ctid::text::point)[0]) AS pages FROM hnarrow;

-- a record too large even for TOAST
CREATE TABLE qwide (a text) USING :am;
ALTER TABLE qwide ALTER COLUMN a SET STORAGE PLAIN;
INSERT INTO qwide VALUES (repeat('x', 9000));

DROP TABLE h, q, qc, hc, qu, hu, qch, qp, qpart, qnarrow, hnarrow, qwide;
DROP FUNCTION nsm_workload(text);
