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
CREATE FUNCTION checked(am text, rel text DEFAULT 'qhot') RETURNS bool
LANGUAGE plpgsql AS $$
DECLARE
  r bool;
BEGIN
  IF am = 'heap' THEN
    RETURN true;
  END IF;
  EXECUTE format('SELECT quickstep.check_table(%L) IS NOT NULL', rel) INTO r;
  RETURN r;
END $$;
SELECT checked(:'am');

-- A full page.  The first update of one of its rows goes to another page;
-- pruning then frees what the row held there, and updates of the page's
-- other rows stay on it (HOT): heap reuses the freed bytes; HPL, whose
-- freed slot keeps its fixed fields (new slots come in groups of a cache
-- line per field), gives that DEAD slot to the heap-only version.  The
-- dead row's index entries still name the slot until VACUUM: every index
-- path must ignore an entry that reaches a heap-only record.
-- (pgbench_accounts' columns: an HPL page holds 64 rows, and its 65th slot
-- would take a new cache line for every field at once.)
CREATE TABLE qfull (id int PRIMARY KEY, b int, v int, pad char(84)) USING :am;
ALTER TABLE qfull SET (autovacuum_enabled = off);
INSERT INTO qfull SELECT g, 1, 0, 'p' FROM generate_series(1, 1000) g;
CREATE TABLE qfull0 AS
  SELECT row_number() OVER (ORDER BY id) AS n, id FROM qfull WHERE ctid < '(1,0)';
CREATE PROCEDURE churn_page(n int) LANGUAGE plpgsql AS $$
DECLARE
  r record;
BEGIN
  FOR r IN SELECT id FROM qfull0 WHERE qfull0.n <= churn_page.n ORDER BY id LOOP
    UPDATE qfull SET v = v + 1 WHERE id = r.id;
    COMMIT;
  END LOOP;
END $$;
CALL churn_page(8);
-- how many of the 8 stayed on their page (heap 7; HPL 4: each update that
-- leaves gives the next one its slot; 0 when HPL waited for a new group of
-- slots, which the space of about 9 pruned rows buys)
SELECT count(*) * 3 > 8 AS page_reused FROM qfull JOIN qfull0 USING (id)
 WHERE qfull0.n <= 8 AND qfull.ctid < '(1,0)';
SELECT id AS dead_id FROM qfull0 WHERE n = 22 \gset
SELECT id AS upd_id FROM qfull0 WHERE n = 21 \gset
DELETE FROM qfull WHERE id = :dead_id;
SELECT count(*) FROM qfull WHERE id = :upd_id;	-- prunes the page
UPDATE qfull SET v = 7 WHERE id = :upd_id;
SELECT ctid < '(1,0)' AS same_page FROM qfull WHERE id = :upd_id;
CREATE FUNCTION probe(a int, b int) RETURNS TABLE (kind text, rows text)
LANGUAGE plpgsql AS $$
BEGIN
  SET LOCAL enable_seqscan = off;
  SET LOCAL enable_bitmapscan = off;
  SET LOCAL enable_indexonlyscan = off;
  kind := 'index';
  SELECT string_agg(id || ':' || v, ' ' ORDER BY id) INTO rows
    FROM qfull WHERE id IN (a, b);
  RETURN NEXT;
  SET LOCAL enable_indexscan = off;
  SET LOCAL enable_bitmapscan = on;
  kind := 'bitmap';
  SELECT string_agg(id || ':' || v, ' ' ORDER BY id) INTO rows
    FROM qfull WHERE id IN (a, b);
  RETURN NEXT;
  SET LOCAL enable_bitmapscan = off;
  SET LOCAL enable_indexonlyscan = on;
  kind := 'index-only';
  SELECT string_agg(id::text, ' ' ORDER BY id) INTO rows
    FROM qfull WHERE id IN (a, b);
  RETURN NEXT;
  SET LOCAL enable_indexonlyscan = off;
  SET LOCAL enable_seqscan = on;
  kind := 'seq';
  SELECT string_agg(id || ':' || v, ' ' ORDER BY id) INTO rows
    FROM qfull WHERE id IN (a, b);
  RETURN NEXT;
END $$;
SELECT * FROM probe(:dead_id, :upd_id);
-- a unique check through the stale entry: the key is free
INSERT INTO qfull VALUES (:dead_id, 1, 1, 'back');
SELECT * FROM probe(:dead_id, :upd_id);
DELETE FROM qfull WHERE id = :dead_id;
VACUUM qfull;
SELECT * FROM probe(:dead_id, :upd_id);
SELECT count(*), sum(v) FROM qfull;
SELECT checked(:'am', 'qfull');
-- a page with heap-only records is frozen as any other (the stale-entry
-- rule of VACUUM skips all-visible pages)
VACUUM (FREEZE) qfull;
SELECT CASE WHEN :'am' = 'heap' THEN true
            ELSE (SELECT bool_and(vm_all_frozen)
                    FROM quickstep.page_visibility('qfull')) END AS all_frozen;

-- A page bound by slots, not bytes (issue 16): pgbench_tellers' rows,
-- three ints and a NULL, each updated many times.  An HPL or PAX page that
-- pruning leaves short of slots for HOT versions sends updates of its
-- chains to another page until it keeps a reserve; rows, chains and index
-- entries must stay consistent through the moves.
CREATE TABLE qtell (tid int PRIMARY KEY, bid int, tbalance int, filler char(84))
  USING :am WITH (autovacuum_enabled = off);
INSERT INTO qtell (tid, bid, tbalance)
  SELECT g, (g - 1) / 10 + 1, 0 FROM generate_series(1, 100) g;
DO $$
BEGIN
  FOR i IN 1 .. 600 LOOP
    UPDATE qtell SET tbalance = tbalance + i WHERE tid = (i * 37) % 100 + 1;
    COMMIT;
  END LOOP;
END $$;
SELECT count(*), sum(tbalance), count(filler), sum(tid * tbalance) FROM qtell;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT count(*), sum(tbalance), sum(tid * tbalance) FROM qtell WHERE tid > 0;
SELECT tid, tbalance FROM qtell WHERE tid IN (1, 38, 75, 100) ORDER BY tid;
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT checked(:'am', 'qtell');
VACUUM qtell;
SELECT count(*), sum(tbalance) FROM qtell;
SELECT checked(:'am', 'qtell');
DROP TABLE qtell;
DROP TABLE qfull, qfull0;
DROP PROCEDURE churn_page(int);
DROP FUNCTION probe(int, int);
DROP TABLE qhot;
DROP FUNCTION scans(int, int);
DROP PROCEDURE churn(int);
DROP FUNCTION checked(text, text);
