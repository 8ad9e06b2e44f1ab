-- Tests specific to the HPL page format (src/page/hpl.c).
CREATE SCHEMA hpl_layout;
SET search_path = hpl_layout, public;

-- records per page: W1 Narrow-U (10 int4), heap vs NSM vs HPL
CREATE TABLE n_heap (c1 int4, c2 int4, c3 int4, c4 int4, c5 int4, c6 int4,
  c7 int4, c8 int4, c9 int4, c10 int4) USING heap;
CREATE TABLE n_nsm (LIKE n_heap) USING quickstep_nsm;
CREATE TABLE n_hpl (LIKE n_heap) USING quickstep_hpl;
CREATE TABLE n_hpl_nn (c1 int4 NOT NULL, c2 int4 NOT NULL, c3 int4 NOT NULL,
  c4 int4 NOT NULL, c5 int4 NOT NULL, c6 int4 NOT NULL, c7 int4 NOT NULL,
  c8 int4 NOT NULL, c9 int4 NOT NULL, c10 int4 NOT NULL) USING quickstep_hpl;
INSERT INTO n_heap SELECT g, g, g, g, g, g, g, g, g, g FROM generate_series(1, 5000) g;
INSERT INTO n_nsm SELECT * FROM n_heap;
INSERT INTO n_hpl SELECT * FROM n_heap;
INSERT INTO n_hpl_nn SELECT * FROM n_heap;
SELECT 'heap' AS am, max((ctid::text::point)[1]) AS recs_per_page FROM n_heap WHERE (ctid::text::point)[0] = 0
UNION ALL SELECT 'nsm', max((ctid::text::point)[1]) FROM n_nsm WHERE (ctid::text::point)[0] = 0
UNION ALL SELECT 'hpl', max((ctid::text::point)[1]) FROM n_hpl WHERE (ctid::text::point)[0] = 0
UNION ALL SELECT 'hpl not null', max((ctid::text::point)[1]) FROM n_hpl_nn WHERE (ctid::text::point)[0] = 0;

-- at most 291 records per page (tiny records)
CREATE TABLE tiny (b bool NOT NULL) USING quickstep_hpl;
INSERT INTO tiny SELECT true FROM generate_series(1, 1000);
SELECT max((ctid::text::point)[1]) AS max_offset, pg_relation_size('tiny') / 8192 AS pages FROM tiny;

-- all NULLs, every type class (byval 1/2/4/8, by-reference fixed, varlena, cstring)
CREATE TABLE nul (a bool, b int2, c int4, d int8, e float8, f uuid, g name,
  h text, i numeric, j point, k char(3)) USING quickstep_hpl;
INSERT INTO nul DEFAULT VALUES;
INSERT INTO nul VALUES (true, 2, 3, 4, 5.5, 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11',
  'nm', 'txt', 1.25, '(1,2)', 'ab');
INSERT INTO nul SELECT NULL, g, NULL, g, NULL, NULL, 'n' || g, NULL, g, NULL, NULL
  FROM generate_series(1, 300) g;
SELECT count(*), count(a), count(b), count(c), count(d), count(e), count(f),
  count(g), count(h), count(i), count(j), count(k), sum(b), sum(d), sum(i) FROM nul;
SELECT * FROM nul WHERE b IS NULL OR b = 2 ORDER BY b NULLS FIRST;
SELECT quickstep.check_table('nul');

-- many attributes: wide-row pages (more fields than half a page of cache lines)
SELECT 'CREATE TABLE wide (' || string_agg('c' || g || ' int4', ', ') || ') USING quickstep_hpl'
  FROM generate_series(1, 200) g \gexec
SELECT 'INSERT INTO wide SELECT ' || string_agg('g + ' || g, ', ') || ' FROM generate_series(1, 500) g'
  FROM generate_series(1, 200) g \gexec
SELECT count(*), sum(c1), sum(c100), sum(c200) FROM wide;
UPDATE wide SET c150 = NULL WHERE c1 % 2 = 0;
SELECT count(c150), sum(c149), sum(c151) FROM wide;
SELECT quickstep.check_table('wide');
SELECT count(*) FROM wide WHERE c200 > 600;

-- just below the wide-row threshold, mixed types
CREATE TABLE mixed (id int NOT NULL, a text, b varchar(20), c int8, d float4,
  e date, f timestamptz, g bool, h bytea, i int2, j numeric, k text) USING quickstep_hpl;
INSERT INTO mixed SELECT g, 'a' || g, 'b' || (g % 17), g * 3, g / 7.0,
  '2020-01-01'::date + g, '2020-01-01 00:00+00'::timestamptz + g * interval '1 hour',
  g % 3 = 0, decode(lpad(to_hex(g), 8, '0'), 'hex'), (g % 100)::int2,
  g * 1.5, CASE WHEN g % 5 = 0 THEN NULL ELSE repeat('k', g % 40) END
  FROM generate_series(1, 3000) g;
SELECT count(*), sum(id), sum(length(a)), count(DISTINCT b), sum(c), round(sum(d::numeric), 1),
  max(e), max(f), count(*) FILTER (WHERE g), sum(length(h)), sum(i), sum(j),
  count(k), sum(length(k)) FROM mixed;

-- wide varlena values: inline (compressible), toasted, plain storage
CREATE TABLE big (id int, t text) USING quickstep_hpl;
INSERT INTO big VALUES (1, repeat('abc', 2000)), (2, repeat(md5('x'), 1000)),
  (3, (SELECT string_agg(md5(g::text), '') FROM generate_series(1, 400) g));
SELECT id, length(t), md5(t) FROM big ORDER BY id;
SELECT quickstep.check_table('big');

-- ALTER TABLE ADD COLUMN with and without defaults, DROP COLUMN, on old pages
CREATE TABLE alt (a int NOT NULL, b text) USING quickstep_hpl;
INSERT INTO alt SELECT g, 'b' || g FROM generate_series(1, 600) g;
ALTER TABLE alt ADD COLUMN c int;
ALTER TABLE alt ADD COLUMN d int DEFAULT 42;
ALTER TABLE alt ADD COLUMN e text DEFAULT 'dflt';
INSERT INTO alt VALUES (601, 'b601', 1, 2, 'x');
INSERT INTO alt (a, b) VALUES (602, 'b602');
SELECT count(*), count(c), sum(d), count(e), sum(length(e)) FROM alt;
SELECT * FROM alt WHERE a IN (1, 600, 601, 602) ORDER BY a;
UPDATE alt SET c = a WHERE a <= 10;
SELECT count(c), sum(c) FROM alt;
ALTER TABLE alt DROP COLUMN b;
INSERT INTO alt VALUES (603, 3, 4, 'y');
SELECT * FROM alt WHERE a IN (1, 5, 602, 603) ORDER BY a;
ALTER TABLE alt ALTER COLUMN a DROP NOT NULL;
INSERT INTO alt VALUES (NULL, 9, 9, 'z');
SELECT count(*), count(a), sum(d) FROM alt;
SELECT quickstep.check_table('alt');
DELETE FROM alt;
VACUUM alt;
INSERT INTO alt VALUES (NULL, 1, 1, 'again');
SELECT * FROM alt;
SELECT quickstep.check_table('alt');

-- space reuse: VACUUM frees slots, the variable-size area is compacted
CREATE TABLE reuse (id int, t text) USING quickstep_hpl WITH (autovacuum_enabled = off);
INSERT INTO reuse SELECT g, repeat('r', 100) FROM generate_series(1, 2000) g;
SELECT pg_relation_size('reuse') / 8192 AS pages;
DELETE FROM reuse WHERE id % 2 = 0;
VACUUM reuse;
INSERT INTO reuse SELECT g, repeat('s', 100) FROM generate_series(2, 2000, 2) g;
SELECT pg_relation_size('reuse') / 8192 AS pages_after, count(*), sum(id),
  count(*) FILTER (WHERE t LIKE 's%') FROM reuse;
SELECT quickstep.check_table('reuse');

-- the pushdown scan (read_column) returns what a plain scan returns
CREATE TABLE ps (a int4, b int8, c text, d float8, e int2) USING quickstep_hpl;
INSERT INTO ps SELECT g, g * 1000, 'c' || (g % 100), g / 3.0,
  CASE WHEN g % 11 = 0 THEN NULL ELSE (g % 300)::int2 END FROM generate_series(1, 20000) g;
DELETE FROM ps WHERE a % 13 = 0;
ANALYZE ps;
-- (seq scans disabled so that the planner takes QuickstepScan where it can)
SET enable_seqscan = off;
CREATE FUNCTION plan_has(q text, s text) RETURNS bool LANGUAGE plpgsql AS $$
DECLARE l text;
BEGIN
  FOR l IN EXECUTE 'EXPLAIN (COSTS off) ' || q LOOP
    IF l LIKE '%' || s || '%' THEN RETURN true; END IF;
  END LOOP;
  RETURN false;
END $$;
SELECT plan_has($$SELECT a, b, c, d, e FROM ps WHERE a BETWEEN 100 AND 15000 AND e > 5 AND c >= 'c5'$$,
  'QuickstepScan') AS uses_quickstepscan;
CREATE TEMP TABLE r_on AS
  SELECT a, b, c, d, e FROM ps WHERE a BETWEEN 100 AND 15000 AND e > 5 AND c >= 'c5';
SET quickstep.enable_pushdown = off;
CREATE TEMP TABLE r_off AS
  SELECT a, b, c, d, e FROM ps WHERE a BETWEEN 100 AND 15000 AND e > 5 AND c >= 'c5';
SELECT count(*) AS agg_off, sum(b), sum(e), count(e) FROM ps WHERE a > 50;
RESET quickstep.enable_pushdown;
SELECT count(*) AS agg_on, sum(b), sum(e), count(e) FROM ps WHERE a > 50;
SELECT (SELECT count(*) FROM r_on) AS n,
  (SELECT count(*) FROM (SELECT * FROM r_on EXCEPT ALL SELECT * FROM r_off) x) AS on_not_off,
  (SELECT count(*) FROM (SELECT * FROM r_off EXCEPT ALL SELECT * FROM r_on) x) AS off_not_on;
RESET enable_seqscan;
SELECT quickstep.check_table('ps') > 0 AS checked;

-- system columns are readable (records come as formed tuples)
SELECT count(*) FROM ps WHERE xmin::text::bigint > 0 AND cmin = cmin;
CREATE TABLE ret (a int PRIMARY KEY, b text) USING quickstep_hpl;
INSERT INTO ret VALUES (1, 'x') ON CONFLICT (a) DO UPDATE SET b = 'y'
  RETURNING xmin = pg_current_xact_id()::xid AS xmin_ok;
INSERT INTO ret VALUES (1, 'x') ON CONFLICT (a) DO UPDATE SET b = 'y'
  RETURNING b, xmin = pg_current_xact_id()::xid AS xmin_ok;
UPDATE ret SET b = 'z' RETURNING b, xmin = pg_current_xact_id()::xid AS xmin_ok;
BEGIN;
INSERT INTO ret VALUES (2, 'p'), (2, 'q') ON CONFLICT (a) DO UPDATE SET b = excluded.b;
ROLLBACK;

RESET search_path;
SET client_min_messages = warning;
DROP SCHEMA hpl_layout CASCADE;
RESET client_min_messages;
