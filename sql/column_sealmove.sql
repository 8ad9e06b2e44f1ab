-- The seal moves runs down (issue 12, W7 "via delta"): rows that arrive
-- through the delta leave, after each merge and VACUUM, emptied delta pages
-- below the merged blocks' runs (the delta is filled and emptied at the
-- start of the file, the runs are written above it).  quickstep.seal()
-- writes every live block whose run has enough empty pages below it again,
-- there (lowest first, highest run first), and the VACUUM after it gives
-- the old runs back and truncates the emptied end of the file.  Before,
-- the file kept those pages for good (only later inserts could use them).
CREATE EXTENSION pg_freespacemap;
CREATE SCHEMA column_sealmove;
SET search_path = column_sealmove, public;

CREATE TABLE src AS
  SELECT g AS id, (g::bigint * 7919 % 100003)::int AS a, (g::bigint * 104729 % 1000003)::int AS b,
         md5(g::text) AS t
  FROM generate_series(1, 40000) g;
CREATE TABLE c (id int, a int, b int, t text) USING quickstep_column
  WITH (quickstep.rows_per_block = 10000);
CREATE TABLE sizes (step text, pages bigint);

-- four batches through the delta, each merged and vacuumed
SET quickstep.column_delta_rows = 100000;
SELECT format('INSERT INTO c SELECT * FROM src WHERE id > %s AND id <= %s',
              (r - 1) * 8000, r * 8000),
       'SELECT quickstep.merge(''c'')', 'VACUUM c'
FROM generate_series(1, 5) r \gexec
RESET quickstep.column_delta_rows;
INSERT INTO sizes SELECT 'merged', pg_relation_size('c') / 8192;

-- the delta's emptied pages lie below the runs
SELECT (SELECT delta_rows FROM quickstep.column_table_stats('c')) AS delta_rows,
       (SELECT count(*) FROM pg_freespace('c') WHERE avail >= 4096) > 0 AS has_free;

-- a seal that moves and rolls back: its new versions are retired and
-- their runs given back by the next VACUUM; every row is still there
BEGIN;
SELECT quickstep.seal('c');
ROLLBACK;
VACUUM c;
SELECT count(*) FROM c;
SELECT quickstep.check_table('c');
SELECT count(DISTINCT block_id), count(DISTINCT block_id) FILTER (WHERE state = 'sealed')
FROM quickstep.blocks('c');

SELECT quickstep.seal('c');
VACUUM c;
INSERT INTO sizes SELECT 'sealed', pg_relation_size('c') / 8192;

-- smaller by more than a quarter (about the delta's batch)
SELECT s.pages < m.pages AS shrank
FROM sizes m, sizes s WHERE m.step = 'merged' AND s.step = 'sealed';
SELECT (SELECT s.pages FROM sizes s WHERE step = 'sealed') * 100 /
       (SELECT m.pages FROM sizes m WHERE step = 'merged') < 75 AS shrank_a_quarter;

-- every row there, every block sealed, the structure checked
SELECT count(*), sum(a::bigint), sum(b::bigint), count(DISTINCT t) FROM c;
SELECT (SELECT count(*) FROM (SELECT * FROM src EXCEPT SELECT * FROM c) x) AS missing,
       (SELECT count(*) FROM (SELECT * FROM c EXCEPT SELECT * FROM src) x) AS extra;
SELECT count(DISTINCT block_id), bool_and(state = 'sealed') FROM quickstep.blocks('c');
SELECT quickstep.check_table('c');

-- a second seal and VACUUM find nothing to move: the size stays
SELECT quickstep.seal('c');
VACUUM c;
SELECT pg_relation_size('c') / 8192 = (SELECT pages FROM sizes WHERE step = 'sealed') AS same;

-- with the moves off (quickstep.column_run_reuse_delta), the seal shares
-- the open block's run and moves nothing: the old behaviour
CREATE TABLE c2 (LIKE c) USING quickstep_column WITH (quickstep.rows_per_block = 10000);
SET quickstep.column_delta_rows = 100000;
SELECT format('INSERT INTO c2 SELECT * FROM src WHERE id > %s AND id <= %s',
              (r - 1) * 8000, r * 8000),
       'SELECT quickstep.merge(''c2'')', 'VACUUM c2'
FROM generate_series(1, 5) r \gexec
RESET quickstep.column_delta_rows;
INSERT INTO sizes SELECT 'merged2', pg_relation_size('c2') / 8192;
SET quickstep.column_run_reuse_delta = off;
SELECT quickstep.seal('c2');
RESET quickstep.column_run_reuse_delta;
VACUUM c2;
SELECT pg_relation_size('c2') / 8192 = (SELECT pages FROM sizes WHERE step = 'merged2') AS unchanged,
       count(*) FROM c2;
SELECT quickstep.check_table('c2');

DROP SCHEMA column_sealmove CASCADE;
DROP EXTENSION pg_freespacemap;
