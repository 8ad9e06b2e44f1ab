--
-- Table access method :am (set by the caller, sql/<am>_hot.sql; heap too):
-- heap-only tuples.  An UPDATE that changes no indexed column and whose new
-- version fits on the old one's page inserts no index entries (counted in
-- n_tup_hot_upd); index, bitmap and index-only scans follow the HOT chain
-- from the root the index names to the version the snapshot sees, before
-- and after pruning (which makes a chain's root a redirect and frees its
-- dead heap-only versions at once) and VACUUM; CREATE INDEX [CONCURRENTLY]
-- indexes a chain under its root.  Page-size free: only counts, booleans
-- and rows are shown, the same on heap and the layouts with HOT.
--
SET max_parallel_workers_per_gather = 0;
SET quickstep.enable_pushdown = off;

CREATE TABLE qhot (id int PRIMARY KEY, k int, v int, pad text) USING :am;
ALTER TABLE qhot SET (autovacuum_enabled = off);
CREATE INDEX qhot_k ON qhot (k);
INSERT INTO qhot SELECT g, g, 0, 'x' FROM generate_series(1, 100) g;

-- this transaction's own counts (pg_stat_xact_user_tables)
BEGIN;
UPDATE qhot SET v = v + 1 WHERE id <= 10;	-- no indexed column: HOT
UPDATE qhot SET k = k + 1000 WHERE id = 50;	-- an indexed column: not HOT
UPDATE qhot SET v = v + 1 WHERE id <= 10;	-- HOT again: chains of three
UPDATE qhot SET pad = 'y' WHERE id = 11;	-- HOT
UPDATE qhot SET id = 1011 WHERE id = 12;	-- the key: not HOT
SELECT n_tup_upd, n_tup_hot_upd FROM pg_stat_xact_user_tables
 WHERE relid = 'qhot'::regclass;
COMMIT;

-- each scan kind alone
CREATE FUNCTION scans(lo int, hi int) RETURNS TABLE (kind text, rows text)
LANGUAGE plpgsql AS $$
BEGIN
  SET LOCAL enable_seqscan = off;
  SET LOCAL enable_bitmapscan = off;
  SET LOCAL enable_indexonlyscan = off;
  SET LOCAL enable_tidscan = off;
  kind := 'index';
  SELECT string_agg(id || ':' || k || ':' || v || ':' || pad, ' ' ORDER BY id)
    INTO rows FROM qhot WHERE id BETWEEN lo AND hi;
  RETURN NEXT;
  SET LOCAL enable_indexscan = off;
  SET LOCAL enable_bitmapscan = on;
  kind := 'bitmap';
  SELECT string_agg(id || ':' || k || ':' || v || ':' || pad, ' ' ORDER BY id)
    INTO rows FROM qhot WHERE id BETWEEN lo AND hi;
  RETURN NEXT;
  SET LOCAL enable_bitmapscan = off;
  SET LOCAL enable_indexonlyscan = on;
  kind := 'index-only';
  SELECT string_agg(id::text, ' ' ORDER BY id)
    INTO rows FROM qhot WHERE id BETWEEN lo AND hi;
  RETURN NEXT;
  SET LOCAL enable_indexonlyscan = off;
  SET LOCAL enable_seqscan = on;
  kind := 'seq';
  SELECT string_agg(id || ':' || k || ':' || v || ':' || pad, ' ' ORDER BY id)
    INTO rows FROM qhot WHERE id BETWEEN lo AND hi;
  RETURN NEXT;
END $$;
SELECT * FROM scans(1, 13);
-- by the other index: k of a HOT-updated row, and the moved key
SET enable_seqscan = off;
SELECT id, v FROM qhot WHERE k IN (1, 2, 11, 50, 1050) ORDER BY id;
RESET enable_seqscan;

-- an older snapshot still sees the versions before a HOT update
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT v FROM qhot WHERE id = 3;
SELECT v FROM qhot WHERE id = 3;
COMMIT;

-- many HOT updates of a few rows, each in its own transaction: pruning
-- frees the dead heap-only versions on the page, so the table does not grow
SELECT pg_relation_size('qhot') AS size0 \gset
CREATE PROCEDURE churn(n int) LANGUAGE plpgsql AS $$
BEGIN
  FOR i IN 1..n LOOP
    UPDATE qhot SET v = v + 1 WHERE id = 1 + i % 5;
    COMMIT;
  END LOOP;
END $$;
CALL churn(1000);
SELECT pg_relation_size('qhot') = :size0 AS same_size;
SELECT * FROM scans(1, 13);
SELECT pg_stat_force_next_flush();
SELECT n_tup_upd, n_tup_hot_upd >= 990 AS mostly_hot FROM pg_stat_user_tables
 WHERE relid = 'qhot'::regclass;

-- VACUUM keeps the redirects and removes the entries of dead roots
DELETE FROM qhot WHERE id IN (2, 7);
VACUUM qhot;
SELECT * FROM scans(1, 13);
SELECT count(*) FROM qhot;

-- new indexes on chains: each version under its chain's root
UPDATE qhot SET v = v + 100 WHERE id <= 5;
CREATE INDEX qhot_v ON qhot (v);
CREATE INDEX CONCURRENTLY qhot_pad ON qhot (pad);
UPDATE qhot SET v = v + 100 WHERE id <= 5;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT id, v FROM qhot WHERE v > 100 ORDER BY id;
SELECT id FROM qhot WHERE pad = 'y' ORDER BY id;
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT * FROM scans(1, 13);

-- a unique check through a HOT chain: the live version holds the key
INSERT INTO qhot VALUES (3, 0, 0, 'dup');
UPDATE qhot SET v = 0 WHERE id = 3;
INSERT INTO qhot VALUES (3, 0, 0, 'dup');

-- the layouts' structural check, which knows redirects and chains
CREATE FUNCTION checked(am text) RETURNS bool LANGUAGE plpgsql AS $$
DECLARE
  r bool;
BEGIN
  IF am = 'heap' THEN
    RETURN true;
  END IF;
  EXECUTE 'SELECT quickstep.check_table(''qhot'') IS NOT NULL' INTO r;
  RETURN r;
END $$;
SELECT checked(:'am');
DROP TABLE qhot;
DROP FUNCTION scans(int, int);
DROP PROCEDURE churn(int);
DROP FUNCTION checked(text);
