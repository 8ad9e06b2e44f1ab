--
-- Row layout :am (set by the caller, sql/<layout>_hotpaths.sql): heap-only tuple
-- (HOT) updates.  An UPDATE that changes no indexed column and whose new
-- version fits on the old one's page makes no index entries: it counts in
-- pg_stat_user_tables.n_tup_hot_upd, and every index scan (plain, bitmap,
-- index-only) reaches the new version through the old one's index entries,
-- before and after pruning and VACUUM.  Outputs are heap's.
--
CREATE TABLE ht (id int PRIMARY KEY, k int, v text, w int) USING :am
  WITH (autovacuum_enabled = off);
CREATE INDEX ht_k ON ht (k);
INSERT INTO ht SELECT g, g, 'v' || g, 0 FROM generate_series(1, 20) g;

-- updates, inserts and HOT updates of ht so far (own backend: flush first)
CREATE FUNCTION ht_stats(OUT upd bigint, OUT hot bigint) LANGUAGE sql AS $$
  SELECT n_tup_upd, n_tup_hot_upd FROM pg_stat_user_tables
  WHERE relid = 'ht'::regclass $$;
-- every row through each access path, as one line per path
CREATE FUNCTION ht_paths() RETURNS TABLE (path text, rows text) LANGUAGE plpgsql AS $$
BEGIN
  SET LOCAL enable_seqscan = on;
  SET LOCAL enable_indexscan = off;
  SET LOCAL enable_bitmapscan = off;
  SET LOCAL enable_indexonlyscan = off;
  RETURN QUERY SELECT 'seq', string_agg(format('%s:%s:%s:%s', id, k, v, w), ' ' ORDER BY id) FROM ht;
  SET LOCAL enable_seqscan = off;
  SET LOCAL enable_indexscan = on;
  RETURN QUERY SELECT 'index id', string_agg(format('%s:%s:%s:%s', id, k, v, w), ' ' ORDER BY id) FROM ht WHERE id BETWEEN 1 AND 100;
  RETURN QUERY SELECT 'index k', string_agg(format('%s:%s:%s:%s', id, k, v, w), ' ' ORDER BY id) FROM ht WHERE k BETWEEN -100 AND 1000;
  SET LOCAL enable_indexscan = off;
  SET LOCAL enable_bitmapscan = on;
  RETURN QUERY SELECT 'bitmap k', string_agg(format('%s:%s:%s:%s', id, k, v, w), ' ' ORDER BY id) FROM ht WHERE k BETWEEN -100 AND 1000;
  SET LOCAL enable_bitmapscan = off;
  SET LOCAL enable_indexonlyscan = on;
  RETURN QUERY SELECT 'index-only k', string_agg(k::text, ' ' ORDER BY k) FROM ht WHERE k BETWEEN -100 AND 1000;
END $$;
-- one row by its key through the primary key, and by k through ht_k
CREATE FUNCTION ht_one(int) RETURNS text LANGUAGE plpgsql AS $$
DECLARE r text; s text;
BEGIN
  SET LOCAL enable_seqscan = off;
  SET LOCAL enable_bitmapscan = off;
  SELECT format('%s:%s:%s:%s', id, k, v, w) INTO r FROM ht WHERE id = $1;
  SET LOCAL enable_indexscan = off;
  SET LOCAL enable_bitmapscan = on;
  SELECT format('%s:%s:%s:%s', id, k, v, w) INTO s FROM ht WHERE k = (SELECT k FROM ht WHERE id = $1);
  RETURN coalesce(r, '-') || ' / ' || coalesce(s, '-');
END $$;

-- non-indexed columns changed: HOT
UPDATE ht SET v = v || 'x' WHERE id <= 5;
UPDATE ht SET w = 1 WHERE id = 7;
-- an indexed column set to its own value: still HOT (values are compared)
UPDATE ht SET id = id, k = k WHERE id = 8;
SELECT pg_stat_force_next_flush();
SELECT * FROM ht_stats();
-- an indexed column changed: not HOT
UPDATE ht SET k = k + 100 WHERE id = 6;
UPDATE ht SET id = 60 WHERE id = 9;
SELECT pg_stat_force_next_flush();
SELECT * FROM ht_stats();
SELECT * FROM ht_paths();
SELECT ht_one(3), ht_one(6), ht_one(60), ht_one(9);

-- a long HOT chain on one row, a transaction per update: the page is
-- pruned on the way (the dead versions' space reused, so every update
-- stays on the page and is HOT), every scan sees only the last version
DO $$ BEGIN
  FOR i IN 1 .. 200 LOOP
    UPDATE ht SET w = i, v = repeat('y', i % 50) WHERE id = 1;
    COMMIT;
  END LOOP;
END $$;
SELECT pg_stat_force_next_flush();
SELECT upd, upd - hot AS not_hot FROM ht_stats();
SELECT * FROM ht_paths();
SELECT ht_one(1), count(*) FROM ht;

-- a rolled back HOT update, a HOT update then a delete, a HOT update then
-- an indexed-column update in one transaction
BEGIN;
UPDATE ht SET v = 'rolled back' WHERE id = 2;
SELECT ht_one(2);
ROLLBACK;
SELECT ht_one(2);
UPDATE ht SET w = 42 WHERE id = 3;
DELETE FROM ht WHERE id = 3;
SELECT ht_one(3);
BEGIN;
UPDATE ht SET w = 43 WHERE id = 4;
UPDATE ht SET k = 400 WHERE id = 4;
UPDATE ht SET w = 44 WHERE id = 4;
COMMIT;
SELECT ht_one(4);
SELECT * FROM ht_paths();

-- VACUUM: chains pruned, index entries of the root kept, no row lost or
-- duplicated; index-only scans after the visibility map is set
VACUUM ht;
SELECT * FROM ht_paths();
SELECT ht_one(1), ht_one(2), ht_one(4), ht_one(5), ht_one(7), ht_one(8);
-- updates after VACUUM: HOT again, on the pruned chains
UPDATE ht SET w = w + 1000;
SELECT pg_stat_force_next_flush();
SELECT upd - hot AS not_hot FROM ht_stats();
VACUUM ht;
SELECT * FROM ht_paths();

-- CREATE INDEX over HOT chains indexes each chain's live version under its
-- root; the new index (on a column HOT updates changed) answers as a scan
UPDATE ht SET w = -id WHERE id % 2 = 0;
CREATE INDEX ht_w ON ht (w);
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT id, w FROM ht WHERE w < 0 ORDER BY w;
-- w is indexed now: updating it is not HOT
UPDATE ht SET w = 0 WHERE id = 2;
SELECT pg_stat_force_next_flush();
SELECT upd - hot AS not_hot FROM ht_stats();
SELECT id, w FROM ht WHERE w <= 0 ORDER BY w, id;
RESET enable_seqscan;
RESET enable_bitmapscan;
REINDEX TABLE ht;
SELECT * FROM ht_paths();

DROP TABLE ht;
DROP FUNCTION ht_stats(), ht_paths(), ht_one(int);
