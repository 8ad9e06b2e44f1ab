-- The merge into the open block (src/merge/README.md section 5): several
-- small merges fill ONE block; each writes a new version of it in which the
-- rows of the earlier merges keep their TIDs (and so their index entries
-- and delete-map entries).  Every step is compared with a heap twin h.
CREATE SCHEMA column_openblock;
SET search_path = column_openblock, public;
-- statements after merge() in its transaction read and change the rows it
-- moved: refused by default (src/merge/README.md §2), allowed for this test
SET quickstep.debug_merge_hold = on;
SET quickstep.column_delta_rows = 100000;	-- inserts stay in the delta
SET max_parallel_workers_per_gather = 0;

CREATE TABLE h (id int NOT NULL, k text, n numeric, v int8);
CREATE TABLE c (LIKE h) USING quickstep_column
  WITH (quickstep.rows_per_block = 1000);
ALTER TABLE h SET (autovacuum_enabled = off);
ALTER TABLE c SET (autovacuum_enabled = off);
CREATE INDEX c_id ON c (id);
CREATE INDEX c_k ON c (k);

CREATE FUNCTION twin(q text) RETURNS text LANGUAGE plpgsql AS $f$
DECLARE nh bigint; nc bigint;
BEGIN
  EXECUTE replace(q, '{t}', 'h'); GET DIAGNOSTICS nh = ROW_COUNT;
  EXECUTE replace(q, '{t}', 'c'); GET DIAGNOSTICS nc = ROW_COUNT;
  IF nh = nc THEN RETURN nc || ' rows'; END IF;
  RETURN format('DIFFER: heap %s rows, column %s rows', nh, nc);
END $f$;

CREATE FUNCTION same() RETURNS text LANGUAGE plpgsql AS $f$
DECLARE ch bigint; hc bigint; nc bigint;
BEGIN
  SELECT count(*) INTO ch FROM (SELECT * FROM c EXCEPT ALL SELECT * FROM h) x;
  SELECT count(*) INTO hc FROM (SELECT * FROM h EXCEPT ALL SELECT * FROM c) x;
  SELECT count(*) INTO nc FROM c;
  IF ch = 0 AND hc = 0 THEN RETURN format('same: %s rows', nc); END IF;
  RETURN format('DIFFER: c-h %s, h-c %s', ch, hc);
END $f$;

-- the blocks: versions read as one block each (state, rows, dict encoding of k)
CREATE FUNCTION blocks() RETURNS TABLE (block_id int, state text, nrows bigint, k_enc text)
LANGUAGE sql AS $$
  SELECT block_id, state, rows, encoding FROM quickstep.blocks('c')
  WHERE column_name = 'k' ORDER BY block_id $$;

-- the TIDs of the rows already in main, to see that a merge keeps them
CREATE TABLE loc (id int, old tid);
CREATE FUNCTION remember() RETURNS void LANGUAGE sql AS
$$ TRUNCATE loc; INSERT INTO loc SELECT id, ctid FROM c
   WHERE (ctid::text::point)[0] >= 2147483648 $$;
CREATE FUNCTION kept() RETURNS text LANGUAGE sql AS
$$ SELECT format('%s main rows before, %s at the same TID, %s moved',
     (SELECT count(*) FROM loc),
     (SELECT count(*) FROM c JOIN loc ON c.id = loc.id AND c.ctid = loc.old),
     (SELECT count(*) FROM c JOIN loc ON c.id = loc.id AND c.ctid <> loc.old)) $$;
-- every row found through the index on id at the TID a scan reads
CREATE FUNCTION by_index() RETURNS bigint LANGUAGE plpgsql AS $f$
DECLARE n bigint;
BEGIN
  SET LOCAL enable_seqscan = off; SET LOCAL enable_bitmapscan = off;
  SELECT count(*) INTO n FROM c c1 WHERE EXISTS
    (SELECT 1 FROM c c2 WHERE c2.id = c1.id AND c2.ctid = c1.ctid);
  RETURN n;
END $f$;

-- 1. five small merges: one open block that grows
SELECT twin($$INSERT INTO {t} SELECT i, 'k' || i % 7, i / 3.0, i FROM generate_series(1, 150) i$$);
SELECT quickstep.merge('c') AS moved;
SELECT * FROM blocks();
SELECT remember();
SELECT twin($$INSERT INTO {t} SELECT i, 'a' || i % 5, NULL, -i FROM generate_series(151, 300) i$$);
SELECT quickstep.merge('c') AS moved;
SELECT * FROM blocks();
SELECT kept(), same(), by_index(), quickstep.check_table('c') IS NOT NULL AS checked;
SELECT remember();
SELECT twin($$INSERT INTO {t} SELECT i, NULL, i, i FROM generate_series(301, 400) i$$);
SELECT quickstep.merge('c') AS moved;
SELECT twin($$INSERT INTO {t} SELECT i, 'z' || i % 3, i, NULL FROM generate_series(401, 500) i$$);
SELECT quickstep.merge('c') AS moved;
SELECT twin($$INSERT INTO {t} SELECT i, 'k' || i % 7, i, i FROM generate_series(501, 600) i$$);
SELECT quickstep.merge('c') AS moved;
SELECT * FROM blocks();
SELECT kept(), same(), by_index(), quickstep.check_table('c') IS NOT NULL AS checked;
SELECT k, count(*) FROM c WHERE k >= 'k' GROUP BY k ORDER BY k;

-- 2. DML on rows of the open block, then more merges: deletes, updates and
-- locks of old rows survive a new version (the delete map is shared)
SELECT twin($$DELETE FROM {t} WHERE id % 10 = 0$$);
SELECT twin($$UPDATE {t} SET v = v * 100 WHERE id % 10 = 1$$);
SELECT remember();
SELECT twin($$INSERT INTO {t} SELECT i, 'q' || i % 2, i, i FROM generate_series(601, 700) i$$);
SELECT quickstep.merge('c') AS moved;
SELECT * FROM blocks();
SELECT kept(), same(), by_index(), quickstep.check_table('c') IS NOT NULL AS checked;
BEGIN;
SELECT twin($$SELECT id FROM {t} WHERE id BETWEEN 5 AND 9 FOR UPDATE$$);
SELECT twin($$UPDATE {t} SET k = 'upd' WHERE id = 7$$);
COMMIT;
SELECT same();

-- 3. a merge that rolls back leaves the open block as it was; that block
-- then takes no more rows (its next TIDs had index entries): a new one does
SELECT remember();
SELECT twin($$INSERT INTO {t} SELECT i, 'r' || i % 4, i, i FROM generate_series(701, 750) i$$);
BEGIN;
SELECT quickstep.merge('c') AS moved;
ROLLBACK;
SELECT * FROM blocks();
SELECT kept(), same(), by_index(), quickstep.check_table('c') IS NOT NULL AS checked;
SELECT quickstep.merge('c') AS moved;
SELECT * FROM blocks();
SELECT kept(), same(), by_index(), quickstep.check_table('c') IS NOT NULL AS checked;
VACUUM c;
SELECT kept(), same(), by_index(), quickstep.check_table('c') IS NOT NULL AS checked;
SET enable_seqscan = off;
SELECT id, k, v FROM c WHERE id IN (3, 455, 710, 749) ORDER BY id;
RESET enable_seqscan;

-- every read path over the open block's versions: bitmap and TID scans,
-- ANALYZE's sample, against the heap twin
SET enable_seqscan = off; SET enable_indexscan = off;
SELECT (SELECT count(*) FROM c WHERE id BETWEEN 100 AND 720) AS c_bitmap,
       (SELECT count(*) FROM h WHERE id BETWEEN 100 AND 720) AS h_rows;
RESET enable_indexscan;
SELECT count(*) AS by_tid FROM c WHERE ctid = ANY (ARRAY(SELECT old FROM loc));
RESET enable_seqscan;
ANALYZE c;
SELECT reltuples = (SELECT count(*) FROM c) AS analyze_counts_every_row
  FROM pg_class WHERE oid = 'c'::regclass;

-- 4. the open block fills up (rows_per_block = 1000): the merge fills it,
-- it is closed, and the rest starts the next open block
SELECT twin($$INSERT INTO {t} SELECT i, 'f' || i % 9, i, i FROM generate_series(751, 1800) i$$);
SELECT quickstep.merge('c') AS moved;
SELECT * FROM blocks();
SELECT same(), by_index(), quickstep.check_table('c') IS NOT NULL AS checked;

-- superseded versions are freed by VACUUM: their runs go back to the delta
VACUUM c;
SELECT same(), by_index(), quickstep.check_table('c') IS NOT NULL AS checked;

-- an aborted merge into the open block leaves the delete-map pages its own
-- DML made past the rows of the version that stays: check_table accepts
-- them (it reported corruption), the block is closed, no row is lost
CREATE TABLE ab (id int PRIMARY KEY, v text) USING quickstep_column;
INSERT INTO ab SELECT i, 'a' || i FROM generate_series(1, 100) i;
SELECT quickstep.merge('ab') AS moved;
INSERT INTO ab SELECT i, 'b' || i FROM generate_series(101, 1100) i;
BEGIN;
SELECT quickstep.merge('ab') AS moved;
UPDATE ab SET v = 'x' WHERE id = 1050;
ROLLBACK;
SELECT quickstep.check_table('ab') IS NOT NULL AS checked;
SELECT quickstep.merge('ab') AS moved;
SELECT count(*), sum(id), min(v), max(v) FROM ab;
SELECT v FROM ab WHERE id = 1050;
SELECT quickstep.check_table('ab') IS NOT NULL AS checked;

DROP SCHEMA column_openblock CASCADE;
