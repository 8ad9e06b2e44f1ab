-- char(n) and numeric(p,s) columns of column tables are dictionary-encoded:
-- their opclasses do not declare equal values identical (BTEQUALIMAGE), but
-- a typmod makes every stored value canonical (src/column/values.c,
-- typmod_canonical).  Every pushed predicate, grouping, sort and fetch must
-- give heap's answer, padding and display scale included; an ALTER COLUMN
-- TYPE that drops the typmod without a rewrite must not make a new value
-- read back as an old equal one.
SET quickstep.column_delta_rows = 0;
CREATE TABLE dth (id int, f char(3), n numeric(8,2), fc char(3) COLLATE "C",
  v varchar(5), u numeric);
INSERT INTO dth SELECT g,
  (ARRAY['a', 'a  ', 'ab', 'b', ' a', '', 'zz', NULL])[1 + g % 8],
  (ARRAY[1.5, 1.50, 1.499, -0.00, 0, 'NaN', 123456.78, -3.1, NULL])[1 + g % 9]::numeric,
  (ARRAY['a', 'B', 'b ', ' '])[1 + g % 4],
  (ARRAY['x', 'x ', 'y'])[1 + g % 3],
  (ARRAY[1.5, 1.50, 2])[1 + g % 3]
  FROM generate_series(1, 30000) g;
CREATE TABLE dtc (LIKE dth) USING quickstep_column;
INSERT INTO dtc SELECT * FROM dth;
CREATE INDEX ON dtc (id);
CREATE INDEX ON dth (id);
ANALYZE dtc;
ANALYZE dth;
-- char(3), numeric(8,2), char(3) "C" and varchar are dictionaries; the
-- unconstrained numeric is not
SELECT column_name, encoding FROM quickstep.blocks('dtc')
 WHERE block_id = (SELECT min(block_id) FROM quickstep.blocks('dtc'))
 ORDER BY column_name;

-- each predicate: rows and the sum of their ids, column table against heap
CREATE FUNCTION dt_pred(pred text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  c text;
  h text;
BEGIN
  EXECUTE format('SELECT count(*) || ''/'' || coalesce(sum(id), 0) FROM dtc WHERE %s', pred) INTO c;
  EXECUTE format('SELECT count(*) || ''/'' || coalesce(sum(id), 0) FROM dth WHERE %s', pred) INTO h;
  RETURN CASE WHEN c = h THEN 'same ' || c ELSE 'DIFFERS: ' || c || ', heap ' || h END;
END $$;
SELECT p, dt_pred(p) FROM (VALUES
  ($$f = 'a'$$), ($$f = 'a  '$$), ($$f = 'ab '$$), ($$f = ' a'$$), ($$f = ''$$),
  ($$f < 'ab'$$), ($$f > ' a'$$), ($$f <= 'b'$$), ($$f <> 'a'$$),
  ($$f BETWEEN 'a' AND 'b'$$), ($$f IN ('a', 'zz', 'q')$$), ($$f IS NULL$$),
  ($$n = 1.5$$), ($$n = 1.50$$), ($$n = 1.499$$), ($$n = 0$$), ($$n < 0$$),
  ($$n = 'NaN'$$), ($$n > 100$$), ($$n BETWEEN 1.49 AND 1.51$$),
  ($$n IN (1.5, -3.1, 7)$$), ($$n IS NULL$$), ($$n >= 'NaN'$$),
  ($$fc = 'b'$$), ($$fc < 'b'$$), ($$fc = ' '$$), ($$fc > 'B'$$),
  ($$v = 'x'$$), ($$v = 'x '$$),
  ($$f = 'a' AND n = 1.5$$), ($$f > 'a' AND n < 2 AND fc = 'B'$$)) AS t(p);
-- the predicates above run in the storage
CREATE FUNCTION dt_plan(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
  l text;
BEGIN
  FOR l IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
    RETURN NEXT l;
  END LOOP;
END $$;
SELECT count(*) AS pushed FROM dt_plan($$SELECT id FROM dtc WHERE f = 'a' AND n = 1.5$$) l
 WHERE l LIKE '%Storage Filter: ((f = ''a''::bpchar) AND (n = 1.5))%';

-- every row as text (padding and scale), by a scan and by index fetches
SELECT (SELECT count(*) FROM (SELECT format('%s|%s|%s|%s|%s|%s', id, f, n, fc, v, u) FROM dtc
        EXCEPT ALL SELECT format('%s|%s|%s|%s|%s|%s', id, f, n, fc, v, u) FROM dth) a) AS not_in_heap,
       (SELECT count(*) FROM (SELECT format('%s|%s|%s|%s|%s|%s', id, f, n, fc, v, u) FROM dth
        EXCEPT ALL SELECT format('%s|%s|%s|%s|%s|%s', id, f, n, fc, v, u) FROM dtc) b) AS not_in_column;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT count(*) AS fetched_differ FROM generate_series(1, 30000, 7) g
 WHERE (SELECT format('%s|%s|%s', f, n, fc) FROM dtc WHERE id = g) IS DISTINCT FROM
       (SELECT format('%s|%s|%s', f, n, fc) FROM dth WHERE id = g);
RESET enable_seqscan;
RESET enable_bitmapscan;
-- grouping and order
SELECT (SELECT string_agg(format('%s:%s:%s', f, n, c), ',' ORDER BY f, n)
          FROM (SELECT f, n, count(*) c FROM dtc GROUP BY f, n) x) =
       (SELECT string_agg(format('%s:%s:%s', f, n, c), ',' ORDER BY f, n)
          FROM (SELECT f, n, count(*) c FROM dth GROUP BY f, n) x) AS same_groups;
SELECT (SELECT string_agg(format('%s', fc), ',' ORDER BY fc, id) FROM dtc) =
       (SELECT string_agg(format('%s', fc), ',' ORDER BY fc, id) FROM dth) AS same_order;
SELECT min(f) = (SELECT min(f) FROM dth) AND max(n) = (SELECT max(n) FROM dth) AS same_minmax FROM dtc;

-- a merge into an open block whose char(n)/numeric(p,s) columns are
-- dictionaries: the chooser rebuilds them over old and new values, each
-- checked to be its typmod's image (append.c; values that bypass the
-- coercion — C functions, long-format numerics of clusters upgraded from
-- before 9.1 — cannot be made from SQL: SQL and PL/pgSQL functions,
-- column definition lists and binary COPY all apply the typmod)
SET quickstep.column_delta_rows = 1000;
CREATE TABLE rtc (id int, f char(3), n numeric(8,2)) USING quickstep_column;
CREATE TABLE rth (id int, f char(3), n numeric(8,2));
INSERT INTO rtc SELECT g, 'a', 1.5 FROM generate_series(1, 50) g;
INSERT INTO rth SELECT g, 'a', 1.5 FROM generate_series(1, 50) g;
SELECT quickstep.merge('rtc') > 0 AS merged;
INSERT INTO rtc SELECT g, (ARRAY['ab', 'a ', 'b'])[1 + g % 3], (ARRAY[1.50, 1.5, 7])[1 + g % 3]
  FROM generate_series(51, 90) g;
INSERT INTO rth SELECT g, (ARRAY['ab', 'a ', 'b'])[1 + g % 3], (ARRAY[1.50, 1.5, 7])[1 + g % 3]
  FROM generate_series(51, 90) g;
SELECT quickstep.merge('rtc') > 0 AS merged;
SELECT column_name, encoding FROM quickstep.blocks('rtc') WHERE column_name IN ('f', 'n')
 ORDER BY column_name;
SELECT (SELECT count(*) FROM (SELECT format('%s|[%s]|%s', id, f, n) FROM rtc
        EXCEPT ALL SELECT format('%s|[%s]|%s', id, f, n) FROM rth) a) AS not_in_heap,
       (SELECT count(*) FROM (SELECT format('%s|[%s]|%s', id, f, n) FROM rth
        EXCEPT ALL SELECT format('%s|[%s]|%s', id, f, n) FROM rtc) b) AS not_in_column;
SELECT (SELECT count(*) FROM rtc WHERE n = 1.5 AND f = 'a') AS col,
       (SELECT count(*) FROM rth WHERE n = 1.5 AND f = 'a') AS heap;
SELECT quickstep.check_table('rtc') IS NOT NULL AS checked;
SET quickstep.column_delta_rows = 0;
DROP TABLE rth, rtc;

-- values that are not their typmod's images (as C code or a pre-9.1
-- cluster could hand a column): made here by writing them into columns
-- without a typmod and then setting pg_attribute.atttypmod.  A block with
-- one gets no dictionary for that column (even with encoding_n = 'dict'),
-- a merge into an open dictionary block rebuilds it, and every value reads
-- back with heap's bytes.
SET quickstep.column_delta_rows = 1000;
CREATE TABLE nch (id int, f bpchar, n numeric);
CREATE TABLE ncc (id int, f bpchar, n numeric) USING quickstep_column;
CREATE FUNCTION nc_typmods(typmods boolean) RETURNS void LANGUAGE sql AS $$
  UPDATE pg_attribute SET atttypmod = CASE WHEN typmods THEN
      CASE attname WHEN 'f' THEN 3 + 4 ELSE ((8 << 16) | 2) + 4 END ELSE -1 END
   WHERE attrelid IN ('nch'::regclass, 'ncc'::regclass) AND attname IN ('f', 'n') $$;
-- canonical images first (as char(3) and numeric(8,2) store them)
INSERT INTO nch SELECT g, 'a  ', 1.50 FROM generate_series(1, 60) g;
INSERT INTO ncc SELECT * FROM nch;
SELECT nc_typmods(true);
ALTER TABLE ncc SET (quickstep.encoding_n = 'dict');
SELECT quickstep.merge('ncc') > 0 AS merged;
SELECT column_name, encoding FROM quickstep.blocks('ncc') WHERE column_name IN ('f', 'n')
 ORDER BY column_name;
-- then equal values with other images
SELECT nc_typmods(false);
INSERT INTO nch SELECT g, (ARRAY['a', 'a ', 'a  '])[1 + g % 3],
  (ARRAY[1.5, 1.5000, 1.50])[1 + g % 3] FROM generate_series(61, 90) g;
INSERT INTO ncc SELECT * FROM nch WHERE id > 60;
SELECT nc_typmods(true);
SELECT quickstep.merge('ncc') > 0 AS merged;
SELECT column_name, encoding FROM quickstep.blocks('ncc') WHERE column_name IN ('f', 'n')
 ORDER BY column_name;
SELECT format('[%s]', f) AS f, n::text, count(*) FROM ncc GROUP BY 1, 2 ORDER BY 1, 2;
SELECT (SELECT count(*) FROM (SELECT format('%s|[%s]|%s', id, f, n) FROM ncc
        EXCEPT ALL SELECT format('%s|[%s]|%s', id, f, n) FROM nch) a) AS not_in_heap,
       (SELECT count(*) FROM (SELECT format('%s|[%s]|%s', id, f, n) FROM nch
        EXCEPT ALL SELECT format('%s|[%s]|%s', id, f, n) FROM ncc) b) AS not_in_column;
SELECT (SELECT count(*) FROM ncc WHERE n = 1.5) AS col, (SELECT count(*) FROM nch WHERE n = 1.5) AS heap;
SELECT quickstep.check_table('ncc') IS NOT NULL AS checked;
-- VACUUM FULL builds new blocks from them: no dictionary either
VACUUM FULL ncc;
SELECT DISTINCT column_name, encoding FROM quickstep.blocks('ncc') WHERE column_name IN ('f', 'n')
 ORDER BY column_name;
SELECT count(*) AS not_in_heap FROM (SELECT format('%s|[%s]|%s', id, f, n) FROM ncc
        EXCEPT ALL SELECT format('%s|[%s]|%s', id, f, n) FROM nch) a;
SELECT nc_typmods(false);
DROP TABLE nch, ncc;
DROP FUNCTION nc_typmods(boolean);
SET quickstep.column_delta_rows = 0;

-- what gets a dictionary and what does not: bpchar without a typmod (equal
-- values 'a' and 'a ' differ), a domain over numeric(8,2), numeric(5,-2);
-- but char(3) with multibyte characters, numeric(300,0) and numeric(90,70)
-- (long-format images) and index sub-blocks over char(n)/numeric(p,s)
CREATE DOMAIN d82 AS numeric(8,2);
CREATE TABLE kinds (id int, b bpchar, d d82, ns numeric(5,-2), m char(3),
  big numeric(300,0), fine numeric(90,70)) USING quickstep_column
  WITH (quickstep.index_columns = 'm,fine');
INSERT INTO kinds SELECT g, (ARRAY['a', 'a '])[1 + g % 2], 1.5, 1200, (ARRAY['é', 'éa', 'ab'])[1 + g % 3],
  10::numeric ^ 280 + g % 5, 0.5 + (g % 4) * 1e-60
  FROM generate_series(1, 3000) g;
SELECT column_name, encoding FROM quickstep.blocks('kinds') WHERE column_name <> 'id'
 ORDER BY column_name;
CREATE TABLE kinds_h AS SELECT * FROM kinds;
SELECT (SELECT count(*) FROM (SELECT format('%s|[%s]|%s|%s|[%s]|%s|%s', id, b, d, ns, m, big, fine) FROM kinds
        EXCEPT ALL SELECT format('%s|[%s]|%s|%s|[%s]|%s|%s', id, b, d, ns, m, big, fine) FROM kinds_h) a)
       AS not_in_heap;
SELECT (SELECT count(*) FROM kinds WHERE m = 'é') AS col, (SELECT count(*) FROM kinds_h WHERE m = 'é') AS heap;
SELECT (SELECT count(*) FROM kinds WHERE fine = 0.5 + 2e-60) AS col,
       (SELECT count(*) FROM kinds_h WHERE fine = 0.5 + 2e-60) AS heap;
SELECT (SELECT count(*) FROM kinds WHERE big > 10::numeric ^ 280 + 2) AS col,
       (SELECT count(*) FROM kinds_h WHERE big > 10::numeric ^ 280 + 2) AS heap;
DROP TABLE kinds, kinds_h;
DROP DOMAIN d82;

-- the typmods dropped without a rewrite: new rows keep their own images
ALTER TABLE dtc ALTER COLUMN f TYPE bpchar, ALTER COLUMN n TYPE numeric;
ALTER TABLE dth ALTER COLUMN f TYPE bpchar, ALTER COLUMN n TYPE numeric;
SET quickstep.column_delta_rows = 1000;
INSERT INTO dtc VALUES (30001, 'a', 1.5, 'a', 'x', 1), (30002, 'a ', 1.500, 'a', 'x', 1),
  (30003, 'ab', 0.0, 'a', 'x', 1);
INSERT INTO dth VALUES (30001, 'a', 1.5, 'a', 'x', 1), (30002, 'a ', 1.500, 'a', 'x', 1),
  (30003, 'ab', 0.0, 'a', 'x', 1);
SELECT quickstep.merge('dtc') > 0 AS merged;
SELECT id, format('[%s]', f) AS f, n FROM dtc WHERE id > 30000 ORDER BY id;
SELECT id, format('[%s]', f) AS f, n FROM dth WHERE id > 30000 ORDER BY id;
SELECT (SELECT count(*) FROM (SELECT format('%s|%s|%s', id, f, n) FROM dtc
        EXCEPT ALL SELECT format('%s|%s|%s', id, f, n) FROM dth) a) AS not_in_heap,
       (SELECT count(*) FROM (SELECT format('%s|%s|%s', id, f, n) FROM dth
        EXCEPT ALL SELECT format('%s|%s|%s', id, f, n) FROM dtc) b) AS not_in_column;
SELECT p, dt_pred(p) FROM (VALUES ($$f = 'a'$$), ($$n = 1.5$$), ($$f < 'ab'$$)) AS t(p);
SELECT quickstep.check_table('dtc') IS NOT NULL AS checked;
DROP TABLE dtc, dth;
DROP FUNCTION dt_pred(text);
DROP FUNCTION dt_plan(text);
