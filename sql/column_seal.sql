-- The seal (src/column/README.md section 4.5): quickstep.seal() writes a
-- sorted next version of the open block in which every row keeps its TID
-- (the image's TID map).  Every reader path is compared, before and after
-- the seal, with a heap twin h and with the TIDs the rows had.
CREATE SCHEMA column_seal;
SET search_path = column_seal, public;
SET quickstep.column_delta_rows = 100000;	-- inserts stay in the delta
SET max_parallel_workers_per_gather = 0;

CREATE TABLE h (id int NOT NULL, v int8, k text, n numeric);
CREATE TABLE c (LIKE h) USING quickstep_column
  WITH (quickstep.rows_per_block = 1000, quickstep.sort_key = 'v');
ALTER TABLE h SET (autovacuum_enabled = off);
ALTER TABLE c SET (autovacuum_enabled = off);
CREATE INDEX c_id ON c (id);
CREATE INDEX c_v ON c (v);

CREATE FUNCTION twin(q text) RETURNS text LANGUAGE plpgsql AS $f$
DECLARE nh bigint; nc bigint;
BEGIN
  EXECUTE replace(q, '{t}', 'h'); GET DIAGNOSTICS nh = ROW_COUNT;
  EXECUTE replace(q, '{t}', 'c'); GET DIAGNOSTICS nc = ROW_COUNT;
  IF nh = nc THEN RETURN nc || ' rows'; END IF;
  RETURN format('DIFFER: heap %s rows, column %s rows', nh, nc);
END $f$;

-- the answers of query q (with {t}) on c equal h's, as multisets
CREATE FUNCTION agree(q text) RETURNS text LANGUAGE plpgsql AS $f$
DECLARE ch bigint; hc bigint; nc bigint;
BEGIN
  EXECUTE format('SELECT count(*) FROM (%s EXCEPT ALL %s) x',
                 replace(q, '{t}', 'c'), replace(q, '{t}', 'h')) INTO ch;
  EXECUTE format('SELECT count(*) FROM (%s EXCEPT ALL %s) x',
                 replace(q, '{t}', 'h'), replace(q, '{t}', 'c')) INTO hc;
  EXECUTE format('SELECT count(*) FROM (%s) x', replace(q, '{t}', 'c')) INTO nc;
  IF ch = 0 AND hc = 0 THEN RETURN format('same: %s rows', nc); END IF;
  RETURN format('DIFFER: c-h %s, h-c %s', ch, hc);
END $f$;

-- does the plan of q use node kind k?
CREATE FUNCTION uses(q text, k text) RETURNS boolean LANGUAGE plpgsql AS $f$
DECLARE l text;
BEGIN
  FOR l IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
    IF l LIKE '%' || k || '%' THEN RETURN true; END IF;
  END LOOP;
  RETURN false;
END $f$;

-- every query kind, as one set of answers (compared before and after)
CREATE TABLE answers (q text, a text);
CREATE FUNCTION answer_all() RETURNS SETOF answers LANGUAGE plpgsql AS $f$
DECLARE r record; t text;
BEGIN
  -- sequential scan, with ctid
  SET LOCAL quickstep.enable_pushdown = off;
  SELECT string_agg(format('%s:%s:%s', id, v, ctid), ',' ORDER BY id) INTO t FROM c;
  RETURN QUERY SELECT 'seqscan', md5(t);
  RESET quickstep.enable_pushdown;
  -- QuickstepScan with pushed quals
  SELECT string_agg(format('%s:%s:%s', id, v, ctid), ',' ORDER BY id) INTO t
    FROM c WHERE v BETWEEN 100 AND 300 AND id % 3 <> 0;
  RETURN QUERY SELECT 'pushdown', md5(t);
  SELECT string_agg(format('%s:%s', id, ctid), ',' ORDER BY id) INTO t
    FROM c WHERE v IS NULL;
  RETURN QUERY SELECT 'pushdown null', md5(t);
  -- aggregate pushdown
  SELECT format('%s %s %s %s', count(*), min(v), max(v), sum(v)) INTO t
    FROM c WHERE v < 700;
  RETURN QUERY SELECT 'agg', t;
  SELECT format('%s %s', count(*), sum(id)) INTO t FROM c;
  RETURN QUERY SELECT 'agg all', t;
  -- index scans, bitmap scans
  SET LOCAL enable_seqscan = off; SET LOCAL enable_bitmapscan = off;
  SELECT string_agg(format('%s:%s:%s', id, v, ctid), ',' ORDER BY id) INTO t
    FROM c WHERE id BETWEEN 50 AND 150;
  RETURN QUERY SELECT 'indexscan id', md5(t);
  SELECT string_agg(format('%s:%s:%s', id, v, ctid), ',' ORDER BY v, id) INTO t
    FROM c WHERE v BETWEEN 10 AND 400;
  RETURN QUERY SELECT 'indexscan v', md5(t);
  SET LOCAL enable_indexscan = off; SET LOCAL enable_bitmapscan = on;
  SELECT string_agg(format('%s:%s:%s:%s', id, v, k, ctid), ',' ORDER BY id) INTO t
    FROM c WHERE v BETWEEN 200 AND 900;
  RETURN QUERY SELECT 'bitmap', md5(t);
  RESET enable_seqscan; RESET enable_indexscan; RESET enable_bitmapscan;
  -- TID scans and TID range scans
  SELECT string_agg(format('%s:%s:%s', x.id, x.v, x.ctid), ',' ORDER BY x.id) INTO t
    FROM generate_series(1, 600, 7) g, LATERAL
    (SELECT id, v, ctid FROM c WHERE ctid = (SELECT ctid FROM c c2 WHERE c2.id = g)) x;
  RETURN QUERY SELECT 'tidscan', md5(t);
  SELECT string_agg(format('%s:%s:%s', id, v, ctid), ',' ORDER BY id) INTO t
    FROM c WHERE ctid >= '(2147483648,20)' AND ctid < '(2147483649,40)';
  RETURN QUERY SELECT 'tidrange', md5(t);
END $f$;

-- rows in no order of v (and some NULLs), merged into an open block
INSERT INTO h SELECT i, CASE WHEN i % 17 = 0 THEN NULL ELSE (i * 7919) % 1000 END,
  'k' || (i % 23), i / 7.0 FROM generate_series(1, 600) i;
INSERT INTO c SELECT * FROM h;
SELECT quickstep.merge('c');
-- deleted rows before the seal (the delete map exists)
SELECT twin($$DELETE FROM {t} WHERE id IN (5, 77, 333)$$);
SELECT block_id, state, rows, sorted FROM quickstep.blocks('c') WHERE column_name = 'v';

-- the plans this test relies on
SELECT uses('SELECT * FROM c WHERE v BETWEEN 100 AND 300', 'QuickstepScan') AS pushdown_plan,
       uses('SELECT count(*) FROM c WHERE v < 700', 'Quickstep') AS agg_plan,
       uses($$SELECT * FROM c WHERE ctid >= '(2147483648,20)' AND ctid < '(2147483649,40)'$$,
            'Tid Range Scan') AS tidrange_plan;

CREATE TABLE before AS SELECT * FROM answer_all();
CREATE TABLE loc AS SELECT id, ctid AS old FROM c;
SELECT count(*) AS main_rows FROM loc WHERE (old::text::point)[0] >= 2147483648;

SELECT quickstep.seal('c') AS sealed;
SELECT block_id, state, rows, sorted, min, max FROM quickstep.blocks('c')
  WHERE column_name IN ('v', 'id') ORDER BY column_name;
-- nothing left to seal
SELECT quickstep.seal('c') AS sealed_again;

-- every answer as before the seal, and every row at its TID
SELECT b.q, b.a = a.a AS same_answer FROM before b JOIN answer_all() a USING (q) ORDER BY b.q;
SELECT count(*) AS rows_at_same_tid FROM c JOIN loc ON c.id = loc.id AND c.ctid = loc.old;
SELECT count(*) AS rows_moved FROM c JOIN loc ON c.id = loc.id AND c.ctid <> loc.old;
SELECT agree('SELECT * FROM {t}') AS seqscan,
       agree('SELECT * FROM {t} WHERE v BETWEEN 100 AND 300') AS pushdown,
       agree('SELECT count(*), min(v), max(v), sum(v) FROM {t} WHERE v < 700') AS agg;
SELECT quickstep.check_table('c') IS NOT NULL AS checked;

-- DML and row locks after the seal, through every path
SELECT twin($$UPDATE {t} SET k = 'upd' WHERE v BETWEEN 400 AND 450$$);
SELECT twin($$DELETE FROM {t} WHERE id % 50 = 1$$);
SELECT twin($$SELECT * FROM {t} WHERE id BETWEEN 200 AND 260 FOR UPDATE$$);
SELECT twin($$UPDATE {t} SET v = v + 1 WHERE id = 100$$);
SELECT id AS locked_by_tid FROM c
  WHERE ctid = (SELECT old FROM loc WHERE id = 42) FOR UPDATE;
SELECT agree('SELECT * FROM {t}') AS after_dml,
       agree('SELECT id, v FROM {t} WHERE v BETWEEN 100 AND 500') AS pushdown_after_dml;
SET enable_seqscan = off;
SELECT agree('SELECT id, v, k FROM {t} WHERE id BETWEEN 1 AND 300') AS index_after_dml;
RESET enable_seqscan;
SELECT quickstep.check_table('c') IS NOT NULL AS checked;

-- a sealed block in arrival order (a load into a table with indexes) is sorted
CREATE TABLE c2 (LIKE h) USING quickstep_column
  WITH (quickstep.rows_per_block = 1000, quickstep.sort_key = 'v');
CREATE INDEX c2_id ON c2 (id);
SET quickstep.column_delta_rows = 0;
INSERT INTO c2 SELECT * FROM h;
RESET quickstep.column_delta_rows;
SELECT state, sorted FROM quickstep.blocks('c2') WHERE column_name = 'v';
CREATE TABLE loc2 AS SELECT id, ctid AS old FROM c2;
SELECT quickstep.seal('c2') AS sorted_blocks;
SELECT state, sorted FROM quickstep.blocks('c2') WHERE column_name = 'v';
SELECT count(*) AS rows_at_same_tid FROM c2 JOIN loc2 ON c2.id = loc2.id AND c2.ctid = loc2.old;
SELECT count(*) FILTER (WHERE c2.id IS NULL) AS missing FROM loc2 LEFT JOIN c2 ON c2.ctid = loc2.old;
SELECT quickstep.check_table('c2') IS NOT NULL AS checked;

-- the merge that fills the open block seals it sorted, keeping the TIDs of
-- the rows it had (and of the rows it moves: their index entries)
CREATE TABLE h4 (id int, v int);
CREATE TABLE c4 (LIKE h4) USING quickstep_column
  WITH (quickstep.rows_per_block = 1000, quickstep.sort_key = 'v');
CREATE INDEX c4_id ON c4 (id);
INSERT INTO h4 SELECT i, (i * 37) % 1001 FROM generate_series(1, 600) i;
INSERT INTO c4 SELECT * FROM h4;
SELECT quickstep.merge('c4');
CREATE TABLE loc4 AS SELECT id, ctid AS old FROM c4;
INSERT INTO h4 SELECT i, (i * 37) % 1001 FROM generate_series(601, 1400) i;
INSERT INTO c4 SELECT * FROM h4 WHERE id > 600;
SELECT quickstep.merge('c4');
SELECT block_id, state, rows, sorted FROM quickstep.blocks('c4') WHERE column_name = 'v'
  ORDER BY block_id;
SELECT count(*) AS rows_at_same_tid FROM c4 JOIN loc4 ON c4.id = loc4.id AND c4.ctid = loc4.old;
SELECT agree('SELECT * FROM {t}4') AS merged_full,
       agree('SELECT * FROM {t}4 WHERE v BETWEEN 100 AND 400') AS pushdown;
-- every row through the index at the TID a sequential scan reads
CREATE TABLE seq4 AS SELECT id, v, ctid AS t FROM c4;
SET enable_seqscan = off; SET enable_bitmapscan = off;
SELECT count(*) AS by_index_same_tid FROM seq4 s
  WHERE EXISTS (SELECT 1 FROM c4 WHERE c4.id = s.id AND c4.ctid = s.t AND c4.v = s.v);
RESET enable_seqscan; RESET enable_bitmapscan;
SELECT quickstep.check_table('c4') IS NOT NULL AS checked;

-- without a sort key the open block is sealed by a version sharing its
-- run: ROLLBACK undoes it, and VACUUM gives the run back only when no
-- version naming it is alive (delta rows then reuse the pages)
CREATE TABLE c3 (id int) USING quickstep_column;
INSERT INTO c3 SELECT generate_series(1, 100);
SELECT quickstep.merge('c3');
SELECT state, sorted FROM quickstep.blocks('c3');
BEGIN;
SELECT quickstep.seal('c3') AS sealed;
SELECT state, sorted FROM quickstep.blocks('c3');
ROLLBACK;
SELECT state, sorted FROM quickstep.blocks('c3');
SELECT quickstep.seal('c3') AS sealed;
SELECT state, sorted FROM quickstep.blocks('c3');
SELECT count(*), sum(id) FROM c3;
VACUUM c3;
INSERT INTO c3 SELECT generate_series(101, 200);
SELECT count(*), sum(id) FROM c3;
SELECT quickstep.check_table('c3') IS NOT NULL AS checked;
ALTER TABLE c3 SET (quickstep.sort_key = 'id');
SELECT quickstep.seal('c3') AS sorted;
VACUUM c3;
INSERT INTO c3 SELECT generate_series(201, 300);
SELECT count(*), sum(id) FROM c3;
SELECT quickstep.check_table('c3') IS NOT NULL AS checked;

-- an aborted seal adds no TID: the block can be sealed again, and merged
-- into, at once (not only after VACUUM)
CREATE TABLE c5 (id int PRIMARY KEY, v int) USING quickstep_column
  WITH (quickstep.sort_key = 'v');
INSERT INTO c5 SELECT g, -g FROM generate_series(1, 100) g;
SELECT quickstep.merge('c5');
BEGIN;
SELECT quickstep.seal('c5') AS sealed;
ROLLBACK;
SELECT block_id, state, rows, sorted FROM quickstep.blocks('c5') WHERE column_name = 'v';
INSERT INTO c5 SELECT g, -g FROM generate_series(101, 200) g;
SELECT quickstep.merge('c5');
SELECT block_id, state, rows, sorted FROM quickstep.blocks('c5') WHERE column_name = 'v';
BEGIN;
SELECT quickstep.seal('c5') AS sealed;
ROLLBACK;
SELECT quickstep.seal('c5') AS sealed_after_rollback;
SELECT block_id, state, rows, sorted FROM quickstep.blocks('c5') WHERE column_name = 'v';
-- VACUUM retires the aborted seals' versions and keeps every index entry
VACUUM c5;
SET enable_seqscan = off; SET enable_bitmapscan = off;
SELECT count(*) AS by_index FROM c5 WHERE id BETWEEN 1 AND 200;
RESET enable_seqscan; RESET enable_bitmapscan;
SELECT count(*), sum(id), min(v) FROM c5;
SELECT quickstep.check_table('c5') IS NOT NULL AS checked;

-- a merge into an open block after an aborted seal, then VACUUM: the
-- merge's rows keep their index entries
CREATE TABLE c6 (id int PRIMARY KEY, v int) USING quickstep_column
  WITH (quickstep.sort_key = 'v');
INSERT INTO c6 SELECT g, -g FROM generate_series(1, 100) g;
SELECT quickstep.merge('c6');
BEGIN;
SELECT quickstep.seal('c6') AS sealed;
ROLLBACK;
INSERT INTO c6 SELECT g, -g FROM generate_series(101, 200) g;
SELECT quickstep.merge('c6');
VACUUM c6;
SELECT block_id, state, rows FROM quickstep.blocks('c6') WHERE column_name = 'v';
SET enable_seqscan = off; SET enable_bitmapscan = off;
SELECT count(*) AS by_index FROM c6 WHERE id BETWEEN 1 AND 200;
RESET enable_seqscan; RESET enable_bitmapscan;
SELECT quickstep.check_table('c6') IS NOT NULL AS checked;

-- two aborted seals of the block at different sizes: neither added a row,
-- so each later merge appends to block 1, and VACUUM leaves it open
CREATE TABLE c8 (id int PRIMARY KEY, v int) USING quickstep_column
  WITH (quickstep.sort_key = 'v');
INSERT INTO c8 SELECT g, -g FROM generate_series(1, 100) g;
SELECT quickstep.merge('c8');
BEGIN;
SELECT quickstep.seal('c8') AS sealed;
ROLLBACK;
INSERT INTO c8 SELECT g, -g FROM generate_series(101, 200) g;
SELECT quickstep.merge('c8');
BEGIN;
SELECT quickstep.seal('c8') AS sealed;
ROLLBACK;
INSERT INTO c8 SELECT g, -g FROM generate_series(201, 300) g;
SELECT quickstep.merge('c8');
SELECT block_id, state, rows FROM quickstep.blocks('c8') WHERE column_name = 'v';
VACUUM c8;
SELECT block_id, state, rows FROM quickstep.blocks('c8') WHERE column_name = 'v';
SET enable_seqscan = off; SET enable_bitmapscan = off;
SELECT count(*) AS by_index, sum(id) FROM c8 WHERE id BETWEEN 1 AND 300;
RESET enable_seqscan; RESET enable_bitmapscan;
SELECT quickstep.check_table('c8') IS NOT NULL AS checked;
SELECT quickstep.seal('c8') AS sealed;
SELECT block_id, state, rows, sorted FROM quickstep.blocks('c8') WHERE column_name = 'v';

-- as c8, with a VACUUM between the first aborted seal and the next merge:
-- the seal's version is RETIRED by then (no SUPERSEDED), and the merge
-- must read it as aborted by its flags (qs_coldir_xmax_aborted_seal)
CREATE TABLE c9 (id int PRIMARY KEY, v int) USING quickstep_column
  WITH (quickstep.sort_key = 'v');
INSERT INTO c9 SELECT g, -g FROM generate_series(1, 100) g;
SELECT quickstep.merge('c9');
BEGIN;
SELECT quickstep.seal('c9') AS sealed;
ROLLBACK;
VACUUM c9;
INSERT INTO c9 SELECT g, -g FROM generate_series(101, 200) g;
SELECT quickstep.merge('c9');
BEGIN;
SELECT quickstep.seal('c9') AS sealed;
ROLLBACK;
INSERT INTO c9 SELECT g, -g FROM generate_series(201, 300) g;
SELECT quickstep.merge('c9');
SELECT block_id, state, rows FROM quickstep.blocks('c9') WHERE column_name = 'v';
VACUUM c9;
SELECT block_id, state, rows FROM quickstep.blocks('c9') WHERE column_name = 'v';
SET enable_seqscan = off; SET enable_bitmapscan = off;
SELECT count(*) AS by_index, sum(id) FROM c9 WHERE id BETWEEN 1 AND 300;
RESET enable_seqscan; RESET enable_bitmapscan;
SET enable_indexscan = off; SET enable_bitmapscan = off;
SELECT count(*) AS by_seqscan, sum(id), sum(v) FROM c9;
RESET enable_indexscan; RESET enable_bitmapscan;
SELECT quickstep.check_table('c9') IS NOT NULL AS checked;

-- a seal rolled back to a savepoint, then sealed again in the same
-- transaction, which commits: the block is sealed once, sorted, all rows
CREATE TABLE c10 (id int PRIMARY KEY, v int) USING quickstep_column
  WITH (quickstep.sort_key = 'v');
INSERT INTO c10 SELECT g, -g FROM generate_series(1, 100) g;
SELECT quickstep.merge('c10');
BEGIN;
SAVEPOINT s;
SELECT quickstep.seal('c10') AS sealed;
ROLLBACK TO s;
SELECT quickstep.seal('c10') AS sealed;
COMMIT;
SELECT block_id, state, rows, sorted FROM quickstep.blocks('c10') WHERE column_name = 'v';
VACUUM c10;
SELECT block_id, state, rows, sorted FROM quickstep.blocks('c10') WHERE column_name = 'v';
SET enable_seqscan = off; SET enable_bitmapscan = off;
SELECT count(*) AS by_index, sum(id) FROM c10 WHERE id BETWEEN 1 AND 100;
RESET enable_seqscan; RESET enable_bitmapscan;
SET enable_indexscan = off; SET enable_bitmapscan = off;
SELECT count(*) AS by_seqscan, sum(id), sum(v) FROM c10;
RESET enable_indexscan; RESET enable_bitmapscan;
SELECT quickstep.check_table('c10') IS NOT NULL AS checked;
-- later rows go to a new open block
INSERT INTO c10 SELECT g, -g FROM generate_series(101, 150) g;
SELECT quickstep.merge('c10');
SELECT block_id, state, rows, sorted FROM quickstep.blocks('c10') WHERE column_name = 'v';
SELECT count(*), sum(id) FROM c10;

-- aggregates answered from block headers: as many after a seal as before
CREATE TABLE c7 (id int, v int) USING quickstep_column
  WITH (quickstep.rows_per_block = 1000);
SET quickstep.column_delta_rows = 0;	-- a bulk load: blocks with no delete map
INSERT INTO c7 SELECT g, (g * 7919) % 1000 FROM generate_series(1, 3000) g;
RESET quickstep.column_delta_rows;
CREATE INDEX ON c7 (id);
CREATE FUNCTION header_blocks(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE l text; r text := 'none';
BEGIN
  FOR l IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
    IF l ~ 'Blocks Answered from Headers' THEN r := trim(l); END IF;
  END LOOP;
  RETURN r;
END $$;
SELECT header_blocks('SELECT count(*), min(v), max(v) FROM c7') AS before_seal;
ALTER TABLE c7 SET (quickstep.sort_key = 'v');
SELECT quickstep.seal('c7') > 0 AS sealed;
SELECT header_blocks('SELECT count(*), min(v), max(v) FROM c7') AS after_seal;
SELECT count(*), min(v), max(v) FROM c7;
DELETE FROM c7 WHERE id = 5;
SELECT header_blocks('SELECT count(*), min(v), max(v) FROM c7') AS after_delete;
SELECT count(*), min(v), max(v) FROM c7;

-- the refusals of quickstep.merge()
SELECT quickstep.seal('h');
BEGIN ISOLATION LEVEL SERIALIZABLE;
SELECT quickstep.seal('c');
ROLLBACK;

DROP SCHEMA column_seal CASCADE;
