-- Index, bitmap and TID fetches of a column table's main rows decode a row's
-- attributes when the executor reads them (src/column/readcache.c, lazy
-- sources of include/page/recslot.h).  Every query runs on the column table
-- and on a heap twin loaded with the same rows; each pair must agree.
SET quickstep.column_delta_rows = 0;
CREATE TABLE fl (id int PRIMARY KEY, a int, b text, c int8, gone int, d numeric)
  USING quickstep_column WITH (quickstep.rows_per_block = 1000);
CREATE TABLE flh (id int PRIMARY KEY, a int, b text, c int8, gone int, d numeric);
INSERT INTO fl SELECT g, CASE WHEN g % 7 = 0 THEN NULL ELSE g % 100 END,
  CASE WHEN g % 5 = 0 THEN NULL WHEN g % 501 = 0 THEN repeat('x' || g, 2000)
       ELSE 'v' || g || repeat('.', g % 400) END,
  CASE WHEN g % 3 = 0 THEN NULL ELSE g * 1000 END, g, g / 7.0
  FROM generate_series(1, 8000) g;
INSERT INTO flh SELECT * FROM fl;
ALTER TABLE fl DROP COLUMN gone;
ALTER TABLE flh DROP COLUMN gone;
ALTER TABLE fl ADD COLUMN e int DEFAULT 42;
ALTER TABLE flh ADD COLUMN e int DEFAULT 42;
-- a by-reference default the blocks do not hold: read from the descriptor
ALTER TABLE fl ADD COLUMN f text DEFAULT 'added later';
ALTER TABLE flh ADD COLUMN f text DEFAULT 'added later';
SELECT count(*) > 4 AS main_blocks FROM quickstep.blocks('fl');
ANALYZE fl;
ANALYZE flh;
CREATE TEMP TABLE probe AS
  SELECT (g * 7919) % 8000 + 1 AS id FROM generate_series(1, 600) g;
-- the plans the pairs below use
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET enable_material = off;
-- a small fetch cache, so that inner fetches may evict the outer row's
-- block reader before the join reads the outer row's other attributes
SET quickstep.column_fetch_cache = '1MB';
-- (counted: PG 18's EXPLAIN also marks the disabled seq scan of probe)
CREATE FUNCTION fl_plan(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  l text; r text := '';
BEGIN
  FOR l IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
    IF l ~ '(Nested Loop|Index Scan|Bitmap Heap Scan|Tid Scan)' THEN
      r := r || btrim(regexp_replace(regexp_replace(l, '(->|using \S+| on \S+)', '', 'g'),
                                     '\s+', ' ', 'g')) || '; ';
    END IF;
  END LOOP;
  RETURN r;
END $$;
SELECT fl_plan('SELECT x.b, y.c FROM probe p JOIN fl x ON x.id = p.id JOIN fl y ON y.id = 8001 - x.id') AS plan;
CREATE FUNCTION fl_same(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  n1 bigint; n2 bigint; d1 bigint; d2 bigint;
BEGIN
  EXECUTE format('SELECT count(*) FROM (%s) s', format(q, 'fl')) INTO n1;
  EXECUTE format('SELECT count(*) FROM (%s) s', format(q, 'flh')) INTO n2;
  EXECUTE format('SELECT count(*) FROM ((%s) EXCEPT ALL (%s)) s',
                 format(q, 'fl'), format(q, 'flh')) INTO d1;
  EXECUTE format('SELECT count(*) FROM ((%s) EXCEPT ALL (%s)) s',
                 format(q, 'flh'), format(q, 'fl')) INTO d2;
  RETURN format('rows %s/%s, differ %s/%s', n1, n2, d1, d2);
END $$;
-- one column, some, all (NULLs, a toasted text, the dropped and the added one)
SELECT fl_same('SELECT t.a FROM probe p JOIN %1$I t ON t.id = p.id') AS one;
SELECT fl_same('SELECT t.c, t.b FROM probe p JOIN %1$I t ON t.id = p.id') AS some;
SELECT fl_same('SELECT t.* FROM probe p JOIN %1$I t ON t.id = p.id') AS all_cols;
SELECT fl_same('SELECT t.id, length(t.b) AS len FROM %1$I t WHERE t.id IN (501, 1002, 1503, 7515)') AS toasted;
SELECT fl_same('SELECT x.b, y.c, x.d, y.e, x.f FROM probe p JOIN %1$I x ON x.id = p.id JOIN %1$I y ON y.id = 8001 - x.id') AS self_join;
SELECT fl_same('SELECT x.a, x.b FROM probe p JOIN %1$I x ON x.id = p.id WHERE x.c IS NULL OR x.d > 500') AS qual;
SELECT fl_same('SELECT array_agg(t.b ORDER BY t.id) FROM probe p JOIN %1$I t ON t.id = p.id') AS agg;
SELECT fl_same('SELECT t.a, count(*) FROM probe p JOIN %1$I t ON t.id = p.id GROUP BY t.a') AS grouped;
SELECT fl_same('SELECT * FROM (SELECT t.b, t.id FROM probe p JOIN %1$I t ON t.id = p.id ORDER BY t.c NULLS FIRST, t.id LIMIT 50) s') AS sorted;
-- bitmap heap scans
SET enable_indexscan = off;
SET enable_bitmapscan = on;
SELECT fl_plan('SELECT t.b, t.e FROM fl t WHERE t.id BETWEEN 2990 AND 3020 OR t.id < 5') AS plan;
SELECT fl_same('SELECT t.b, t.e FROM %1$I t WHERE t.id BETWEEN 2990 AND 3020 OR t.id < 5') AS bitmap;
SELECT fl_same('SELECT x.c, y.b FROM probe p JOIN %1$I x ON x.id = p.id JOIN %1$I y ON y.id = 8001 - x.id') AS bitmap_join;
RESET enable_bitmapscan;
RESET enable_indexscan;
SET enable_bitmapscan = off;
-- TID scans
SELECT fl_plan('SELECT t.b, t.d FROM fl t WHERE t.ctid = ANY (ARRAY(SELECT ctid FROM fl WHERE id % 97 = 0))') AS plan;
SELECT fl_same('SELECT t.b, t.d FROM %1$I t WHERE t.ctid = ANY (ARRAY(SELECT ctid FROM %1$I WHERE id %% 97 = 0))') AS tid;
-- the rows a statement changes: UPDATE ... FROM through the index, DELETE,
-- SELECT ... FOR UPDATE, triggers reading OLD
CREATE TABLE fl_log (t text, id int, old_b text, old_c int8, new_c int8);
CREATE FUNCTION fl_trig() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO fl_log VALUES (TG_TABLE_NAME, OLD.id, OLD.b, OLD.c,
                             CASE WHEN TG_OP = 'UPDATE' THEN NEW.c END);
  RETURN CASE WHEN TG_OP = 'UPDATE' THEN NEW ELSE OLD END;
END $$;
CREATE TRIGGER fl_t BEFORE UPDATE OR DELETE ON fl FOR EACH ROW EXECUTE FUNCTION fl_trig();
CREATE TRIGGER flh_t BEFORE UPDATE OR DELETE ON flh FOR EACH ROW EXECUTE FUNCTION fl_trig();
UPDATE fl SET c = coalesce(fl.c, 0) + 1 FROM probe p WHERE fl.id = p.id AND p.id % 10 = 1;
UPDATE flh SET c = coalesce(flh.c, 0) + 1 FROM probe p WHERE flh.id = p.id AND p.id % 10 = 1;
DELETE FROM fl USING probe p WHERE fl.id = p.id AND p.id % 10 = 2;
DELETE FROM flh USING probe p WHERE flh.id = p.id AND p.id % 10 = 2;
SELECT (SELECT count(*) FROM fl_log WHERE t = 'fl') AS fl_logged,
       (SELECT count(*) FROM fl_log WHERE t = 'flh') AS flh_logged,
       (SELECT count(*) FROM ((SELECT id, old_b, old_c, new_c FROM fl_log WHERE t = 'fl')
         EXCEPT ALL (SELECT id, old_b, old_c, new_c FROM fl_log WHERE t = 'flh')) s) AS differ;
SELECT fl_same('SELECT t.* FROM probe p JOIN %1$I t ON t.id = p.id') AS after_dml;
BEGIN;
SELECT fl_same('SELECT * FROM (SELECT t.b, t.c FROM probe p JOIN %1$I t ON t.id = p.id WHERE p.id %% 10 = 3 FOR UPDATE OF t) s') AS for_update;
COMMIT;
RESET ALL;
DROP TABLE fl, flh, fl_log, probe;
DROP FUNCTION fl_same(text), fl_plan(text), fl_trig();
