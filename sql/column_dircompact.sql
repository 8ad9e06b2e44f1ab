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
-- every round, 150 and more at the end); a second directory page, added
-- at the end of the file, is packed away at the next VACUUM (it would keep
-- VACUUM from truncating), so the chain stays one page
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

-- R3: an aborted load with its own DELETE and an aborted merge go too
-- once VACUUM removed the delete-map entries of their rows (R3b: the
-- first VACUUM's second pass, through their entries), as the committed
-- merges' retired versions go (README 4.7; before, both stayed for good)
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
-- the live block's entry and FREE-range entries (disjoint freed ranges)
SELECT * FROM quickstep.column_directory('a');
-- of them quickstep.blocks() lists the live block only
SELECT state, count(DISTINCT block_id) AS versions, max(rows) AS max_rows
FROM quickstep.blocks('a') GROUP BY state ORDER BY state;

-- Rounds of aborted merges (README 4.7, R3b), on c and its heap twin h
-- (rows from 100001 on).  Each round loads 40 rows, then, by round: a
-- merge that commits (into the open block, or a new one); committed
-- deletes of rows of the open block and a merge into it that rolls back
-- (it extended their delete-map page with its own rows, xmin = the
-- merge); a merge that rolls back after its own transaction deleted,
-- updated and locked rows at their main copies (delete-map pages holding
-- only the aborted merge's rows); a merge that rolls back alone.  Then an
-- xid and two VACUUMs compacting at every removable entry.  Every retired
-- entry goes: the directory lists the live versions and the FREE entries
-- only (before, one entry more for good per aborted merge).
CREATE TABLE msizes (round int, entries bigint, free_entries bigint, live bigint);
CREATE PROCEDURE m_state(r int) LANGUAGE sql AS $$
  INSERT INTO msizes SELECT r, d.entries, d.free_entries,
      (SELECT count(*) FROM (SELECT DISTINCT block_id, state, rows
                             FROM quickstep.blocks('c')) b)
    FROM quickstep.column_directory('c') d
$$;
CREATE FUNCTION mround_sql(r int) RETURNS SETOF text LANGUAGE sql AS $f$
  SELECT q FROM (VALUES
    (1, format('INSERT INTO c SELECT g, g %% 89 FROM generate_series(%s, %s) g', 100000 + r * 40 - 39, 100000 + r * 40)),
    (2, format('INSERT INTO h SELECT g, g %% 89 FROM generate_series(%s, %s) g', 100000 + r * 40 - 39, 100000 + r * 40)),
    (3, CASE r % 4
          WHEN 1 THEN $$DO 'BEGIN PERFORM quickstep.merge(''c''); END'$$
          WHEN 2 THEN format('DELETE FROM c WHERE id BETWEEN %s AND %s', 100000 + r * 40 - 110, 100000 + r * 40 - 100)
          WHEN 3 THEN $$DO 'BEGIN PERFORM quickstep.merge(''c'');
                          DELETE FROM c WHERE id > 100000 AND id % 7 = 0;
                          UPDATE c SET v = v + 1 WHERE id > 100000 AND id % 11 = 0;
                          PERFORM FROM c WHERE id > 100000 AND id % 13 = 0 FOR UPDATE;
                          ROLLBACK; END'$$
          ELSE $$DO 'BEGIN PERFORM quickstep.merge(''c''); ROLLBACK; END'$$ END),
    (4, CASE r % 4
          WHEN 2 THEN format('DELETE FROM h WHERE id BETWEEN %s AND %s', 100000 + r * 40 - 110, 100000 + r * 40 - 100)
          END),
    (5, CASE r % 4
          WHEN 2 THEN $$DO 'BEGIN PERFORM quickstep.merge(''c''); ROLLBACK; END'$$
          END),
    (6, $$DO 'BEGIN PERFORM txid_current(); END'$$),
    (7, 'VACUUM c'), (8, 'VACUUM c'),
    (9, format('CALL m_state(%s)', r))) v(o, q)
  WHERE q IS NOT NULL ORDER BY o
$f$;
\set ECHO none
SELECT mround_sql(r) FROM generate_series(1, 24) r \gexec
\set ECHO all
-- the aborted merges' versions (18) went: no retired entry is left
SELECT count(*) AS rounds, max(entries) AS max_entries,
       max(entries - free_entries - live) AS max_retired,
       (SELECT entries - free_entries - live FROM msizes WHERE round = 24) AS retired_left
FROM msizes;
-- c equals its heap twin, by index too
CREATE FUNCTION c_is_h() RETURNS TABLE (same_rows bool, same_by_index bool)
  LANGUAGE sql SET enable_seqscan = off SET enable_bitmapscan = off AS $$
  SELECT (SELECT (count(*), sum(v), sum(id)) FROM c) =
         (SELECT (count(*), sum(v), sum(id)) FROM h),
         (SELECT (count(*), sum(id)) FROM c WHERE v = 7) =
         (SELECT (count(*), sum(id)) FROM h WHERE v = 7)
$$;
SELECT count(*), sum(v), sum(id), quickstep.check_table('c') IS NOT NULL AS checked FROM c;
SELECT * FROM c_is_h();

-- Without index cleanup VACUUM's second pass does not run: the aborted
-- merge's version is retired, its run given back and its index entries
-- removed (R1), but the delete-map entries its own transaction's DML made
-- are not removed, and only it reaches them: it stays (R3b), and
-- check_table finds every entry left reachable.  The next VACUUM with
-- index cleanup removes them, then the version.
INSERT INTO c SELECT g, g % 89 FROM generate_series(102001, 102040) g;
INSERT INTO h SELECT g, g % 89 FROM generate_series(102001, 102040) g;
DO 'BEGIN PERFORM quickstep.merge(''c'');
    DELETE FROM c WHERE id > 100000 AND id % 3 = 0;
    ROLLBACK; END';
SELECT txid_current() > 0 AS xid;
VACUUM (INDEX_CLEANUP off) c;
VACUUM (INDEX_CLEANUP off) c;
CALL m_state(100);
SELECT entries - free_entries - live AS retired_left FROM msizes WHERE round = 100;
SELECT count(*), sum(v), quickstep.check_table('c') IS NOT NULL AS checked FROM c;
VACUUM c;
CALL m_state(101);
SELECT entries - free_entries - live AS retired_left FROM msizes WHERE round = 101;
SELECT count(*), sum(v), quickstep.check_table('c') IS NOT NULL AS checked FROM c;
SELECT * FROM c_is_h();

-- freeze: relfrozenxid passes every aborted merge's xid
SELECT txid_current()::text AS last_xid \gset
VACUUM (FREEZE) c;
SELECT age(relfrozenxid) < age(:'last_xid'::xid) AS frozen_past
  FROM pg_class WHERE oid = 'c'::regclass;
SELECT count(*), sum(v), sum(id), quickstep.check_table('c') IS NOT NULL AS checked FROM c;
SELECT * FROM c_is_h();

-- R5 (F7): merges into a new block that roll back after their own DELETE
-- and UPDATE made the block's delete map (a root and leaves no other
-- version shares).  Once VACUUM removed its entries, the compaction gives
-- the delete map back to the delta before the version's entry goes;
-- before, the entry went and its pages stayed nobody's for good (4 pages
-- more each round: 10, 14, ... 54).  The merges always abort, so every
-- one makes a new block of the same delta rows.
CREATE TABLE n (id int PRIMARY KEY, v int) USING quickstep_column
  WITH (quickstep.rows_per_block = 1000);
INSERT INTO n SELECT g, g % 89 FROM generate_series(1, 700) g;
CREATE TABLE nsizes (round int, relpages bigint);
\set ECHO none
SELECT q FROM generate_series(1, 12) r,
  LATERAL (VALUES (1, $$DO 'BEGIN PERFORM quickstep.merge(''n'');
    DELETE FROM n WHERE id % 5 = 0; UPDATE n SET v = v + 1 WHERE id % 7 = 0;
    ROLLBACK; END'$$),
   (2, $$DO 'BEGIN PERFORM txid_current(); END'$$), (3, 'VACUUM n'), (4, 'VACUUM n'),
   (5, format('INSERT INTO nsizes SELECT %s, pg_relation_size(''n'') / 8192', r))) v(o, q)
  ORDER BY r, o \gexec
\set ECHO all
-- the table keeps its size from the second round on
SELECT count(*) AS rounds, max(relpages) = min(relpages) AS same_size,
       max(relpages) <= 8 AS small
  FROM nsizes WHERE round >= 2;
SELECT entries - free_entries AS listed FROM quickstep.column_directory('n');
SELECT count(*), sum(v), quickstep.check_table('n') AS checked FROM n;

DROP SCHEMA column_dircompact CASCADE;
