-- VACUUM compacts the block directory of column tables (issue 12; README
-- of src/column section 4.7): entries retired for good (their run given
-- back, their index entries gone) are removed, the freed page ranges are
-- kept in FREE-range entries, and the chain is packed in place.  Before,
-- every merge added an entry for good.
CREATE SCHEMA column_dircompact;
SET search_path = column_dircompact, public;
-- statements after merge() in its transaction read and change the rows it
-- moved: refused by default (src/merge/README.md §2), allowed for this test
SET quickstep.debug_merge_hold = on;

-- 150 rounds of small merges into one open block: each merge supersedes
-- the block's version, VACUUM retires and reclaims the old versions; the
-- directory stays small (it grew by one entry a round before)
CREATE TABLE c (id int PRIMARY KEY, v int) USING quickstep_column
  WITH (quickstep.rows_per_block = 1000);
CREATE INDEX c_v ON c (v);
CREATE TABLE h (id int PRIMARY KEY, v int);
CREATE INDEX h_v ON h (v);
CREATE TABLE sizes (round int, entries bigint, pages bigint, relpages bigint);
-- one round's statements: 60 rows into both, a merge into c's open block
-- (a new version of it), a transaction with an xid, two VACUUMs (retire,
-- then reclaim the old versions), the directory's size
CREATE FUNCTION round_sql(r int) RETURNS SETOF text LANGUAGE sql AS $f$
  VALUES (format('INSERT INTO c SELECT g, g %% 89 FROM generate_series(%s, %s) g', r * 60 - 59, r * 60)),
         (format('INSERT INTO h SELECT g, g %% 89 FROM generate_series(%s, %s) g', r * 60 - 59, r * 60)),
         ($$DO 'BEGIN PERFORM quickstep.merge(''c''); PERFORM txid_current(); END'$$),
         ('VACUUM c'), ('VACUUM c'),
         (format($$INSERT INTO sizes SELECT %s, d.entries, d.pages, pg_relation_size('c') / 8192
                   FROM quickstep.column_directory('c') d$$, r))
$f$;
\set ECHO none
SELECT round_sql(r) FROM generate_series(1, 150) r \gexec
\set ECHO all
-- bounded: the trigger's 127 removable entries plus the live blocks and
-- the retirees one VACUUM behind (without compaction: one entry more
-- every round, 150 and more at the end)
SELECT max(entries) AS max_entries, max(pages) AS pages,
       (SELECT entries FROM sizes WHERE round = 150) < 50 AS compacted
FROM sizes;
SELECT round, entries, pages FROM sizes WHERE round % 10 = 0 ORDER BY round;
SELECT count(*) AS rounds_compacted FROM sizes s
  WHERE entries < (SELECT entries FROM sizes p WHERE p.round = s.round - 1);
SELECT count(*), sum(v), quickstep.check_table('c') AS checked FROM c;
SELECT count(*), sum(v) FROM h;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT count(*), sum(id) FROM c WHERE v = 7;
SELECT count(*), sum(id) FROM h WHERE v = 7;
RESET enable_seqscan;
RESET enable_bitmapscan;

-- compaction whenever an entry is removable (the test GUC): the directory
-- keeps the live versions and a FREE-range entry or two
SET quickstep.debug_dir_compact_min = 0;
\set ECHO none
SELECT round_sql(r) FROM generate_series(151, 170) r \gexec
\set ECHO all
SELECT max(entries) AS max_entries, max(pages) AS pages
  FROM sizes WHERE round > 150;
SELECT free_entries > 0 AS has_free, free_pages > 0 AS lists_pages
  FROM quickstep.column_directory('c');
-- only retired versions went: the live ones are all still listed
SELECT state, count(*) FROM quickstep.blocks('c') WHERE column_name = 'id'
  GROUP BY state ORDER BY state;
SELECT count(*), sum(v), quickstep.check_table('c') AS checked FROM c;
SELECT count(*), sum(v) FROM h;

-- DELETE-all and reload: the freed pages are reused through the FREE
-- entries once the entries that named them are gone
CREATE TABLE r (id int PRIMARY KEY, v int, t text) USING quickstep_column
  WITH (quickstep.rows_per_block = 5000);
CREATE TABLE rsizes (round int, pages bigint, entries bigint);
SET quickstep.column_delta_rows = 0;
\set ECHO none
SELECT format('INSERT INTO r SELECT g, g %% 97, repeat(''x'', g %% 13) FROM generate_series(1, 12000) g'),
       'DELETE FROM r', 'VACUUM r', $$DO 'BEGIN PERFORM txid_current(); END'$$, 'VACUUM r',
       format($$INSERT INTO rsizes SELECT %s, pg_relation_size('r') / 8192, d.entries
                FROM quickstep.column_directory('r') d$$, g)
FROM generate_series(1, 15) g \gexec
\set ECHO all
SELECT max(pages) FILTER (WHERE round > 1) <= max(pages) FILTER (WHERE round = 1) AS file_bounded,
       max(entries) FILTER (WHERE round > 3) <= 8 AS entries_bounded
FROM rsizes;
INSERT INTO r SELECT g, g % 97, repeat('x', g % 13) FROM generate_series(1, 12000) g;
SELECT count(*), sum(v), sum(length(t)), quickstep.check_table('r') AS checked FROM r;
RESET quickstep.column_delta_rows;

-- R3: an aborted load with its own DELETE keeps its entry (its delete map
-- is reachable through it only, R3b), and so does the aborted merge's
-- version: a merged block always has a delete map and no live version of
-- its block reaches the aborted one's published rows (README 4.7, "What
-- stays"); the committed merges' retired versions go
CREATE TABLE a (id int, v int) USING quickstep_column
  WITH (quickstep.rows_per_block = 1000);
SET quickstep.column_delta_rows = 0;
BEGIN;
INSERT INTO a SELECT g, g FROM generate_series(1, 500) g;
DELETE FROM a WHERE id <= 10;
ROLLBACK;
RESET quickstep.column_delta_rows;
INSERT INTO a SELECT g, g FROM generate_series(1, 300) g;
BEGIN;
SELECT quickstep.merge('a') AS moved;
ROLLBACK;
SELECT quickstep.merge('a') AS moved;
INSERT INTO a SELECT g, g FROM generate_series(301, 400) g;
SELECT quickstep.merge('a') AS moved;
SELECT txid_current() > 0 AS xid;
VACUUM a;
SELECT txid_current() > 0 AS xid;
VACUUM a;
VACUUM a;
SELECT count(*), sum(v), quickstep.check_table('a') AS checked FROM a;
-- six entries: the live block's, the aborted load's, the aborted
-- merge's and three FREE-range entries (disjoint freed ranges)
SELECT * FROM quickstep.column_directory('a');
-- of them quickstep.blocks() lists the live block only
SELECT state, count(DISTINCT block_id) AS versions, max(rows) AS max_rows
FROM quickstep.blocks('a') GROUP BY state ORDER BY state;

DROP SCHEMA column_dircompact CASCADE;
