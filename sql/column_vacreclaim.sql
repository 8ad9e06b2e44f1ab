-- VACUUM gives back the blocks whose rows are all deleted (issue 12 D3),
-- and the size estimates of column tables (D4).
--
-- D3: a SEALED block every row of which is deleted by committed
-- transactions older than VACUUM's horizon loses its index entries (the
-- index pass), then is RETIRED, and its run and delete-map pages go back to
-- the delta; empty pages at the end are truncated.  So a DELETE-all and
-- reload cycle keeps the file's size bounded (before, every round added
-- its blocks' runs and delete maps for good).
CREATE SCHEMA column_vacreclaim;
SET search_path = column_vacreclaim, public;
SET quickstep.column_delta_rows = 0;		-- every loaded row into blocks

CREATE TABLE c (id int PRIMARY KEY, v int, t text) USING quickstep_column
  WITH (quickstep.rows_per_block = 5000);
CREATE INDEX c_v ON c (v);
CREATE TABLE h (id int PRIMARY KEY, v int, t text);
CREATE INDEX h_v ON h (v);
CREATE TABLE sizes (round int, pages bigint, blocks bigint);
CREATE FUNCTION blocks_of(r regclass) RETURNS bigint LANGUAGE sql AS
  $$ SELECT count(DISTINCT block_id) FROM quickstep.blocks(r) $$;

CREATE TABLE ticks (round int);
-- 20 rounds: load 12,000 rows (three blocks), delete them all, VACUUM (it
-- retires the blocks), a write (pages go back only after a transaction
-- with an xid ended since the retirement: until then new snapshots may
-- still list the blocks), VACUUM (it gives the pages back and truncates)
SELECT format('INSERT INTO c SELECT g, g %% 97, repeat(''x'', g %% 13) FROM generate_series(1, 12000) g'),
       'DELETE FROM c', 'VACUUM c',
       format('INSERT INTO ticks VALUES (%s)', r), 'VACUUM c',
       format('INSERT INTO sizes SELECT %s, pg_relation_size(''c'') / 8192, blocks_of(''c'')', r)
FROM generate_series(1, 20) r \gexec
-- no block left after any round, and the file no larger than after the first
SELECT max(blocks) AS blocks_left,
       max(pages) FILTER (WHERE round > 1) <= max(pages) FILTER (WHERE round = 1) AS bounded
FROM sizes;
SELECT count(*), quickstep.check_table('c') AS checked FROM c;

-- Runs into freed page ranges: one VACUUM per round.  It retires the
-- round's blocks and gives back the previous round's pages (a retiring
-- VACUUM gives nothing back before a later transaction with an xid ends:
-- here the next round's load), which lie below the file's end, so only
-- reusing them for the next runs and delete maps keeps the file bounded
-- (before: 53, 104, ..., 512 pages after ten rounds).
CREATE TABLE c1 (id int PRIMARY KEY, v int, t text) USING quickstep_column
  WITH (quickstep.rows_per_block = 5000);
CREATE TABLE sizes1 (round int, pages bigint, blocks bigint);
SELECT format('INSERT INTO c1 SELECT g, g %% 97, repeat(''x'', g %% 13) FROM generate_series(1, 12000) g'),
       'DELETE FROM c1', 'VACUUM c1',
       format('INSERT INTO sizes1 SELECT %s, pg_relation_size(''c1'') / 8192, blocks_of(''c1'')', r)
FROM generate_series(1, 12) r \gexec
-- no block left after any round (the last one's retired, its pages still
-- held); the file never larger than after round 2 (two rounds' runs and
-- delete maps: 104 pages; on the extend-only path it grew by ~50 a round)
SELECT max(blocks) AS blocks_left,
       max(pages) FILTER (WHERE round > 2) <= max(pages) FILTER (WHERE round = 2) AS bounded
FROM sizes1;
-- the reused pages read back as blocks, the delta beside them as rows;
-- the checker reads every live block's run pages (each carries its block)
INSERT INTO c1 SELECT g, g % 97, repeat('x', g % 13) FROM generate_series(1, 12000) g;
INSERT INTO c1 VALUES (20001, 1, 'delta');
SELECT count(*), sum(v), sum(length(t)), quickstep.check_table('c1') AS checked FROM c1;

-- a block emptied among others: only it goes, its rows' index entries too
INSERT INTO c SELECT g, g % 97, repeat('x', g % 13) FROM generate_series(1, 12000) g;
INSERT INTO h SELECT g, g % 97, repeat('x', g % 13) FROM generate_series(1, 12000) g;
SELECT blocks_of('c') AS blocks;
DELETE FROM c WHERE id <= 5000;			-- the first block, whole
DELETE FROM h WHERE id <= 5000;
DELETE FROM c WHERE id % 2 = 0 AND id > 10000;	-- part of the third
DELETE FROM h WHERE id % 2 = 0 AND id > 10000;
VACUUM c;
VACUUM h;
SELECT blocks_of('c') AS blocks, quickstep.check_table('c') AS checked;
SELECT count(*), sum(v), sum(length(t)) FROM c;
SELECT count(*), sum(v), sum(length(t)) FROM h;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT count(*), sum(id) FROM c WHERE v = 5;
SELECT count(*), sum(id) FROM h WHERE v = 5;
SELECT id FROM c WHERE id IN (1, 4999, 5000, 5001, 11999, 12000) ORDER BY id;
SELECT id FROM h WHERE id IN (1, 4999, 5000, 5001, 11999, 12000) ORDER BY id;
RESET enable_seqscan;
RESET enable_bitmapscan;

-- a block whose every row was updated: the new versions are in the delta
UPDATE c SET v = v + 1000 WHERE id BETWEEN 5001 AND 10000;
UPDATE h SET v = v + 1000 WHERE id BETWEEN 5001 AND 10000;
VACUUM c;
VACUUM h;
SELECT blocks_of('c') AS blocks, quickstep.check_table('c') AS checked;
SELECT count(*), sum(v) FROM c;
SELECT count(*), sum(v) FROM h;
SELECT count(*), sum(v) FROM c WHERE id BETWEEN 5001 AND 10000;
SELECT count(*), sum(v) FROM h WHERE id BETWEEN 5001 AND 10000;
-- the pages given back take rows again; the TIDs of the retired blocks none
INSERT INTO c SELECT g, g % 97, 'y' FROM generate_series(20001, 20500) g;
SELECT count(*), quickstep.check_table('c') AS checked FROM c;
SELECT count(*) FROM c WHERE ctid = '(2147483648,1)';

-- D4: size estimates, beside heap's for the same statements
CREATE FUNCTION est(q text) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  j json;
BEGIN
  EXECUTE 'EXPLAIN (FORMAT JSON) ' || q INTO j;
  RETURN (j -> 0 -> 'Plan' ->> 'Plan Rows')::bigint;
END $$;
CREATE TABLE ec (id int, v int) USING quickstep_column;
CREATE TABLE eh (id int, v int);
-- never vacuumed, empty: heap's ten pages
SELECT est('SELECT * FROM ec') AS col, est('SELECT * FROM eh') AS heap;
ANALYZE ec;
ANALYZE eh;
SELECT est('SELECT * FROM ec') AS col, est('SELECT * FROM eh') AS heap;
CREATE TABLE lc (id int, v int) USING quickstep_column;
CREATE TABLE lh (id int, v int);
INSERT INTO lc SELECT g, g FROM generate_series(1, 100000) g;
INSERT INTO lh SELECT g, g FROM generate_series(1, 100000) g;
-- before ANALYZE: the blocks' rows exactly
SELECT est('SELECT * FROM lc') AS col, est('SELECT * FROM lh') BETWEEN 90000 AND 110000 AS heap_near;
ANALYZE lc;
ANALYZE lh;
SELECT est('SELECT * FROM lc') AS col, est('SELECT * FROM lh') AS heap;
-- a 10% UPDATE: the old versions count until VACUUM, as heap's (it was 2x:
-- the delete-map pages were taken for delta pages)
UPDATE lc SET v = v + 1 WHERE id % 10 = 0;
UPDATE lh SET v = v + 1 WHERE id % 10 = 0;
SELECT est('SELECT * FROM lc') BETWEEN 100000 AND 115000 AS col_near,
       est('SELECT * FROM lh') BETWEEN 100000 AND 115000 AS heap_near;
-- ANALYZE and VACUUM after deleting half: what they counted
DELETE FROM lc WHERE id <= 50000;
DELETE FROM lh WHERE id <= 50000;
ANALYZE lc;
ANALYZE lh;
SELECT est('SELECT * FROM lc') BETWEEN 45000 AND 55000 AS col_near,
       est('SELECT * FROM lh') BETWEEN 45000 AND 55000 AS heap_near;
VACUUM lc;
VACUUM lh;
SELECT est('SELECT * FROM lc') AS col, est('SELECT * FROM lh') AS heap;
-- a load after the statistics: added to reltuples (heap's density over its
-- pages, half of them emptied by the DELETE, says about 70,000 here)
INSERT INTO lc SELECT g, g FROM generate_series(100001, 150000) g;
INSERT INTO lh SELECT g, g FROM generate_series(100001, 150000) g;
SELECT est('SELECT * FROM lc') AS col;
-- everything deleted and vacuumed: empty, as heap's
DELETE FROM lc;
DELETE FROM lh;
VACUUM lc;
VACUUM lh;
-- the blocks are retired; their pages go back once a transaction with an
-- xid has ended since
SELECT pg_relation_size('lc') / 8192 > 2 AS col_pages_kept;
SELECT txid_current() > 0 AS xid_ended;
VACUUM lc;
SELECT est('SELECT * FROM lc') AS col, est('SELECT * FROM lh') AS heap;
SELECT pg_relation_size('lc') / 8192 AS col_pages, pg_relation_size('lh') / 8192 AS heap_pages;

-- rows only in the delta, of types whose default widths are not their
-- statistics' (TPC-H's nation: 25 rows were planned as 67, the delta's
-- density noted with the types' widths and estimated with pg_statistic's;
-- rows added to the delta since are counted at the types' density)
CREATE TABLE nc (k int, name char(25), r int, cmt varchar(152)) USING quickstep_column;
CREATE TABLE nh (k int, name char(25), r int, cmt varchar(152));
SET quickstep.column_delta_rows = 100000;
COPY nc FROM stdin;
1	n1	1	ccccccccccccccccccccc
2	n2	2	cccccccccccccccccccccc
3	n3	3	ccccccccccccccccccccccc
4	n4	4	cccccccccccccccccccccccc
5	n5	0	ccccccccccccccccccccccccc
6	n6	1	cccccccccccccccccccccccccc
7	n7	2	ccccccccccccccccccccccccccc
8	n8	3	cccccccccccccccccccccccccccc
9	n9	4	ccccccccccccccccccccccccccccc
10	n10	0	cccccccccccccccccccccccccccccc
11	n11	1	ccccccccccccccccccccccccccccccc
12	n12	2	cccccccccccccccccccccccccccccccc
13	n13	3	ccccccccccccccccccccccccccccccccc
14	n14	4	cccccccccccccccccccccccccccccccccc
15	n15	0	ccccccccccccccccccccccccccccccccccc
16	n16	1	cccccccccccccccccccccccccccccccccccc
17	n17	2	ccccccccccccccccccccccccccccccccccccc
18	n18	3	cccccccccccccccccccccccccccccccccccccc
19	n19	4	ccccccccccccccccccccccccccccccccccccccc
20	n20	0	cccccccccccccccccccccccccccccccccccccccc
21	n21	1	ccccccccccccccccccccccccccccccccccccccccc
22	n22	2	cccccccccccccccccccccccccccccccccccccccccc
23	n23	3	ccccccccccccccccccccccccccccccccccccccccccc
24	n24	4	cccccccccccccccccccccccccccccccccccccccccccc
25	n25	0	ccccccccccccccccccccccccccccccccccccccccccccc
\.
RESET quickstep.column_delta_rows;
INSERT INTO nh SELECT * FROM nc;
SELECT delta_rows, main_rows FROM quickstep.column_table_stats('nc');
VACUUM ANALYZE nc;
VACUUM ANALYZE nh;
SELECT est('SELECT * FROM nc') AS col, est('SELECT * FROM nh') AS heap;

-- rows added to the delta after the statistics: counted at the density
-- reltuples had (its delta rows over the delta's pages then), as heap
-- scales reltuples by its pages; the types' density (127 rows a page for
-- an int and a text) counted these 400-byte rows several times over
CREATE TABLE wc (id int, doc text) USING quickstep_column;
CREATE TABLE wh (id int, doc text);
SET quickstep.column_delta_rows = 100000;
INSERT INTO wc SELECT g, repeat(md5(g::text), 12) FROM generate_series(1, 2000) g;
INSERT INTO wh SELECT * FROM wc;
VACUUM ANALYZE wc;
VACUUM ANALYZE wh;
INSERT INTO wc SELECT g, repeat(md5(g::text), 12) FROM generate_series(2001, 4000) g;
INSERT INTO wh SELECT * FROM wc WHERE id > 2000;
RESET quickstep.column_delta_rows;
SELECT main_rows FROM quickstep.column_table_stats('wc');
SELECT est('SELECT * FROM wc') BETWEEN 3600 AND 4400 AS col_near,
       est('SELECT * FROM wh') BETWEEN 3600 AND 4400 AS heap_near;

-- rows of blocks deleted by an UPDATE are not the delta's: the density is
-- reltuples less the blocks' rows not deleted, over the delta's pages
CREATE TABLE uc (id int, doc text) USING quickstep_column;
SET quickstep.column_delta_rows = 0;
INSERT INTO uc SELECT g, repeat(md5(g::text), 12) FROM generate_series(1, 20000) g;
UPDATE uc SET id = id WHERE id % 5 = 0;
ANALYZE uc;
SET quickstep.column_delta_rows = 100000;
INSERT INTO uc SELECT g, repeat(md5(g::text), 12) FROM generate_series(20001, 26000) g;
RESET quickstep.column_delta_rows;
SELECT est('SELECT * FROM uc') BETWEEN 23400 AND 28600 AS col_near;

-- a physical TID names delta rows only: a ctid of a page that held delta
-- rows and became a delete map names no row, and DML by it changes
-- nothing (review5 F3: it reached main rows, with their virtual TIDs)
CREATE TABLE pt (id int, v int) USING quickstep_column;
SET quickstep.column_delta_rows = 0;
INSERT INTO pt SELECT i, i FROM generate_series(1, 1000) i;
SET quickstep.column_delta_rows = 100000;
INSERT INTO pt SELECT i, i FROM generate_series(1001, 1300) i;
-- empty the delta's first page only (a later one keeps rows: no truncation)
DELETE FROM pt WHERE id > 1000 AND ctid < (SELECT max(ctid) FROM pt
  WHERE ctid < '(2147483648,0)');
VACUUM pt;
SELECT txid_current() > 0 AS xid_ended;
VACUUM pt;
-- the delete map takes the freed page
DELETE FROM pt WHERE id <= 10;
CREATE TEMP TABLE pt_tids AS
  SELECT format('(%s,%s)', b, o)::tid AS t
  FROM generate_series(0, (pg_relation_size('pt') / 8192)::int - 1) b,
       generate_series(1, 300) o;
SET enable_seqscan = off;
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET quickstep.enable_pushdown = off;
DO $$
DECLARE
	l text;
	tid_scan bool := false;
BEGIN
	FOR l IN EXECUTE 'EXPLAIN (COSTS OFF) SELECT count(*) FROM pt_tids,
	  LATERAL (SELECT ctid FROM pt WHERE ctid = pt_tids.t) x' LOOP
		tid_scan := tid_scan OR l ~ 'Tid Scan on pt';
	END LOOP;
	RAISE NOTICE 'a TID scan fetches by physical TID: %', tid_scan;
END
$$;
SELECT count(*) FILTER (WHERE x.ctid <> pt_tids.t) AS other_rows,
       count(*) = (SELECT count(*) FROM pt WHERE ctid < '(2147483648,0)') AS delta_rows_found
  FROM pt_tids, LATERAL (SELECT ctid FROM pt WHERE ctid = pt_tids.t) x;
DELETE FROM pt USING pt_tids WHERE pt.ctid = pt_tids.t AND pt.ctid <> pt_tids.t;
UPDATE pt SET v = -1 FROM pt_tids WHERE pt.ctid = pt_tids.t AND pt.ctid <> pt_tids.t;
RESET enable_seqscan;
RESET enable_hashjoin;
RESET enable_mergejoin;
RESET quickstep.enable_pushdown;
SELECT count(*), sum(v) FROM pt;
SELECT quickstep.check_table('pt') >= 0 AS checked;

-- An OPEN block (rows moved in from the delta by merges) whose rows are
-- all deleted is retired and given back too (before: never, merges
-- append to open blocks); the next merge starts a new block.  (A
-- superseded version, retired with its successor's rows, stays listed.)
RESET quickstep.column_delta_rows;
CREATE TABLE o (id int PRIMARY KEY, v int) USING quickstep_column
  WITH (quickstep.rows_per_block = 5000);
INSERT INTO o SELECT g, g % 7 FROM generate_series(1, 300) g;
SELECT quickstep.merge('o') AS moved;
INSERT INTO o SELECT g, g % 7 FROM generate_series(301, 400) g;
SELECT quickstep.merge('o') AS moved;
SELECT DISTINCT block_id, state, rows FROM quickstep.blocks('o') ORDER BY 1, 2, 3;
DELETE FROM o WHERE id > 350;
VACUUM o;
SELECT DISTINCT block_id, state, rows FROM quickstep.blocks('o') ORDER BY 1, 2, 3;
DELETE FROM o;
VACUUM o;
INSERT INTO ticks VALUES (0);
VACUUM o;
SELECT DISTINCT block_id, state, rows FROM quickstep.blocks('o') ORDER BY 1, 2, 3;
SELECT count(*) FROM o;
INSERT INTO o SELECT g, g % 7 FROM generate_series(1, 200) g;
SELECT quickstep.merge('o') AS moved;
SELECT DISTINCT block_id, state, rows FROM quickstep.blocks('o') ORDER BY 1, 2, 3;
SELECT count(*), sum(v) FROM o;
SELECT count(*) FROM o WHERE id BETWEEN 100 AND 300;
SELECT quickstep.check_table('o') >= 0 AS checked;

RESET quickstep.column_delta_rows;
DROP SCHEMA column_vacreclaim CASCADE;
