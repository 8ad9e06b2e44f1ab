-- The seal moves runs down (issue 12, W7 "via delta"): rows that arrive
-- through the delta leave, after each merge and VACUUM, emptied delta pages
-- below the merged blocks' runs (the delta is filled and emptied at the
-- start of the file, the runs are written above it).  quickstep.seal()
-- writes every live block whose run has enough empty pages below it again,
-- there (lowest first, highest run first), and the VACUUM after it gives
-- the old runs back and truncates the emptied end of the file.  Before,
-- the file kept those pages for good (only later inserts could use them).
CREATE EXTENSION pg_freespacemap;
CREATE EXTENSION pageinspect;
CREATE SCHEMA column_sealmove;
SET search_path = column_sealmove, public;

-- block-run pages of a table (special space: the run page magic "QSCP"),
-- whether a directory entry names them or not
CREATE FUNCTION run_pages(rel regclass) RETURNS bigint LANGUAGE sql AS $$
  SELECT count(*) FROM generate_series(0, pg_relation_size(rel) / 8192 - 1) b
  WHERE substr(get_raw_page(rel::text, b::int), 8177, 4) = '\x51534350'::bytea $$;

CREATE TABLE src AS
  SELECT g AS id, (g::bigint * 7919 % 100003)::int AS a, (g::bigint * 104729 % 1000003)::int AS b,
         md5(g::text) AS t
  FROM generate_series(1, 40000) g;
CREATE TABLE c (id int, a int, b int, t text) USING quickstep_column
  WITH (quickstep.rows_per_block = 10000);
CREATE TABLE sizes (step text, pages bigint);

-- five batches through the delta, each merged and vacuumed
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

-- a move that fails after converting the first page of its window (an
-- ERROR there, as a cancel or statement_timeout would raise): the window
-- was listed as a freed range first (one more FREE-range entry), so the
-- next VACUUM's sweep gives the converted page back; before, it stayed a
-- run page no entry names, for good
CREATE TABLE counts AS
  SELECT run_pages('c') AS runs, free_entries FROM quickstep.column_directory('c');
SET quickstep.debug_vacuum_crash = 7;
SELECT quickstep.seal('c');
RESET quickstep.debug_vacuum_crash;
SELECT run_pages('c') - runs AS unnamed_run_pages,
       (SELECT free_entries FROM quickstep.column_directory('c')) - free_entries AS windows_listed
FROM counts;
VACUUM c;
SELECT run_pages('c') - runs AS unnamed_run_pages FROM counts;
SELECT quickstep.check_table('c');

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

-- with the moves off (quickstep.column_run_reuse_delta), the seal seals
-- the open block sharing its run (no sort key) and moves nothing: the file
-- keeps its size
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

-- a move goes down or nowhere.  Two bulk-loaded blocks; the first one's
-- rows deleted, VACUUM gives its run back: a window below the second one
-- as long as its run.  A row inserted then lands on the window's first
-- page, which the free space map still records empty (an inserter records
-- a page only once it is full): the window left is a page short.  The seal
-- finds the row there and no other window below: the block stays as it
-- is, and the file keeps its size.  Before, the write fell back to the
-- freed ranges or the end of the file, and the file grew by the block.
CREATE TABLE b (id int, a int, b int, t text, g int) USING quickstep_column
  WITH (quickstep.rows_per_block = 10000);
SET quickstep.column_delta_rows = 0;
INSERT INTO b SELECT *, 1 FROM src WHERE id <= 10000;
INSERT INTO b SELECT *, 2 FROM src WHERE id <= 10000;
RESET quickstep.column_delta_rows;
DELETE FROM b WHERE g = 1;
-- the first VACUUM retires the emptied block, a later one gives its run
-- back once no snapshot from before the retirement is left
VACUUM b;
VACUUM b;
VACUUM b;
SELECT count(DISTINCT block_id) AS blocks FROM quickstep.blocks('b');
SELECT count(*) > 0 AS has_window FROM pg_freespace('b') WHERE avail >= 4096;
INSERT INTO sizes SELECT 'b', pg_relation_size('b') / 8192;
INSERT INTO sizes SELECT 'b_window', min(blkno) FROM pg_freespace('b') WHERE avail >= 4096;
INSERT INTO b VALUES (0, 0, 0, 'x', 3);
SELECT (ctid::text::point)[0] = (SELECT pages FROM sizes WHERE step = 'b_window') AS on_the_window
FROM b WHERE g = 3;
SELECT avail >= 4096 AS still_recorded_empty
FROM pg_freespace('b') WHERE blkno = (SELECT pages FROM sizes WHERE step = 'b_window');
SELECT quickstep.seal('b');
SELECT pg_relation_size('b') / 8192 = (SELECT pages FROM sizes WHERE step = 'b') AS same_size,
       count(*) FROM b;
VACUUM b;
SELECT pg_relation_size('b') / 8192 <= (SELECT pages FROM sizes WHERE step = 'b') AS not_grown;
SELECT count(*), sum(a::bigint), count(*) FILTER (WHERE g = 3) FROM b;
SELECT quickstep.check_table('b');

-- many moves (review helper-184, R-A): each appends directory entries, so
-- the seal extends the directory by a page at the end of the file, above
-- the runs it vacated; the VACUUM after it packs the directory (the
-- superseded versions and freed-range entries go) so that it can truncate
CREATE TABLE m (id int, a int) USING quickstep_column
  WITH (quickstep.rows_per_block = 1000);
SET quickstep.column_delta_rows = 100000;
SELECT format('INSERT INTO m SELECT g, g %% 1000 FROM generate_series(%s, %s) g',
              (r - 1) * 20000 + 1, r * 20000),
       'SELECT quickstep.merge(''m'')', 'VACUUM m'
FROM generate_series(1, 5) r \gexec
RESET quickstep.column_delta_rows;
INSERT INTO sizes SELECT 'm', pg_relation_size('m') / 8192;
INSERT INTO sizes SELECT 'm_dir', pages FROM quickstep.column_directory('m');
SELECT quickstep.seal('m') AS sealed;
SELECT pages > (SELECT pages FROM sizes WHERE step = 'm_dir') AS dir_grew
FROM quickstep.column_directory('m');
VACUUM m;
SELECT pg_relation_size('m') / 8192 < (SELECT pages FROM sizes WHERE step = 'm') AS truncated,
       count(*), count(DISTINCT id), sum(a::bigint) FROM m;
SELECT quickstep.check_table('m');

DROP SCHEMA column_sealmove CASCADE;
DROP EXTENSION pageinspect;
DROP EXTENSION pg_freespacemap;
