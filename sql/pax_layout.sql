-- Tests specific to the PAX page layout (src/page/pax.c): many attributes,
-- all NULLs, wide varlena, ALTER TABLE ADD/DROP COLUMN over existing pages,
-- records per page, minipage redistribution, pushdown scan = plain scan,
-- check_table.
CREATE SCHEMA pax_layout;
SET search_path = pax_layout, public;
SET quickstep.enable_pushdown = on;

-- records per page: 10 int4 (W1 Narrow-U shape), vs heap and NSM
CREATE TABLE n_pax (a int, b int, c int, d int, e int, f int, g int, h int, i int, j int) USING quickstep_pax;
CREATE TABLE n_nsm (LIKE n_pax) USING quickstep_nsm;
CREATE TABLE n_heap (LIKE n_pax) USING heap;
INSERT INTO n_pax SELECT g, g, g, g, g, g, g, g, g, g FROM generate_series(1, 20000) g;
INSERT INTO n_nsm SELECT * FROM n_pax;
INSERT INTO n_heap SELECT * FROM n_pax;
SELECT relname, pg_relation_size(oid) / 8192 AS pages,
       round(20000.0 / (pg_relation_size(oid) / 8192), 1) AS records_per_page
  FROM pg_class WHERE relname IN ('n_pax', 'n_nsm', 'n_heap') ORDER BY relname;
SELECT pages, records, redistributions, avg_capacity FROM quickstep.pax_stats('n_pax');
SELECT quickstep.check_table('n_pax');

-- pushdown scan equals the plain scan
SELECT count(*), sum(b), min(j), max(j) FROM n_pax WHERE a BETWEEN 100 AND 2000;
SET quickstep.enable_pushdown = off;
SELECT count(*), sum(b), min(j), max(j) FROM n_pax WHERE a BETWEEN 100 AND 2000;
SET quickstep.enable_pushdown = on;
EXPLAIN (COSTS OFF) SELECT sum(b) FROM n_pax WHERE a < 100;

-- variable width: minipages are redistributed as the data area fills
CREATE TABLE v (id int, s text, f float8, c char(1), vc varchar(20), n numeric) USING quickstep_pax;
INSERT INTO v SELECT g, repeat(chr(97 + g % 26), g % 200), g / 3.0, chr(65 + g % 3),
       CASE WHEN g % 5 = 0 THEN NULL ELSE 'vc' || g END, g * 1.25
  FROM generate_series(1, 5000) g;
SELECT redistributions > 0 AS redistributed, records FROM quickstep.pax_stats('v');
SELECT count(*), sum(length(s)), sum(f)::numeric(20,3), count(vc), sum(n), string_agg(DISTINCT c, '') FROM v;
SELECT count(*), sum(length(s)) FROM v WHERE c = 'B' AND id > 1000;
SET quickstep.enable_pushdown = off;
SELECT count(*), sum(length(s)) FROM v WHERE c = 'B' AND id > 1000;
SET quickstep.enable_pushdown = on;
SELECT id, length(s), c, vc, n FROM v WHERE id IN (1, 5, 199, 200, 4999) ORDER BY id;
SELECT quickstep.check_table('v');

-- updates, deletes, VACUUM (compaction keeps the offsets of live records)
CREATE INDEX v_id ON v (id);
UPDATE v SET s = s || s WHERE id % 4 = 0;
DELETE FROM v WHERE id % 3 = 0;
VACUUM v;
SELECT count(*), sum(length(s)), count(vc) FROM v;
SET enable_seqscan = off;
SELECT id, length(s), vc FROM v WHERE id IN (4, 8, 10, 4996) ORDER BY id;
RESET enable_seqscan;
SELECT quickstep.check_table('v');
INSERT INTO v SELECT g, repeat('z', 300), 0, 'Z', 'new', 0 FROM generate_series(5001, 6000) g;
SELECT count(*), sum(length(s)) FROM v WHERE c = 'Z';
SELECT quickstep.check_table('v');

-- many attributes, all NULLs
SELECT format('CREATE TABLE wide (%s) USING quickstep_pax',
              string_agg(format('c%s int', g), ', ')) FROM generate_series(1, 200) g \gexec
INSERT INTO wide (c1, c100, c200) SELECT g, g * 2, g * 3 FROM generate_series(1, 500) g;
INSERT INTO wide DEFAULT VALUES;
SELECT count(*), sum(c1), sum(c100), sum(c200), count(c50) FROM wide;
SELECT count(*) FROM wide WHERE c1 IS NULL;
SELECT quickstep.check_table('wide');
CREATE TABLE allnull (a int, b text, c float8, d bool) USING quickstep_pax;
INSERT INTO allnull SELECT NULL, NULL, NULL, NULL FROM generate_series(1, 1000);
SELECT count(*), count(a), count(b), count(c), count(d) FROM allnull;
SELECT count(*) FROM allnull WHERE a IS NULL AND b IS NULL;
SELECT quickstep.check_table('allnull');

-- wide varlena: inline compressed and toasted values
CREATE TABLE big (id int, t text) USING quickstep_pax;
INSERT INTO big VALUES (1, repeat('abc', 1000)), (2, repeat('q', 1900)),
  (3, (SELECT string_agg(md5(g::text), '') FROM generate_series(1, 300) g)), (4, 'small');
SELECT id, length(t), md5(t) FROM big ORDER BY id;
UPDATE big SET t = t || 'x' WHERE id = 3;
SELECT id, length(t) FROM big ORDER BY id;
SELECT quickstep.check_table('big');

-- ALTER TABLE ADD COLUMN (with and without default) and DROP COLUMN on existing pages
CREATE TABLE alt (a int, b text) USING quickstep_pax;
INSERT INTO alt SELECT g, 'b' || g FROM generate_series(1, 300) g;
ALTER TABLE alt ADD COLUMN c int;
ALTER TABLE alt ADD COLUMN d text DEFAULT 'dflt';
ALTER TABLE alt ADD COLUMN e int DEFAULT 7;
INSERT INTO alt SELECT g, 'b' || g, g, 'new', g FROM generate_series(301, 600) g;
SELECT count(*), count(c), count(d), sum(e), count(*) FILTER (WHERE d = 'dflt') FROM alt;
SELECT a, b, c, d, e FROM alt WHERE a IN (1, 300, 301, 600) ORDER BY a;
SELECT sum(e), count(*) FILTER (WHERE d = 'dflt') FROM alt WHERE e = 7;
SET quickstep.enable_pushdown = off;
SELECT sum(e), count(*) FILTER (WHERE d = 'dflt') FROM alt WHERE e = 7;
SET quickstep.enable_pushdown = on;
ALTER TABLE alt DROP COLUMN b;
SELECT a, c, d, e FROM alt WHERE a IN (1, 600) ORDER BY a;
UPDATE alt SET e = 8 WHERE a = 1;
SELECT a, c, d, e FROM alt WHERE a IN (1, 600) ORDER BY a;
SELECT quickstep.check_table('alt');
VACUUM FULL alt;
SELECT count(*), sum(e), count(*) FILTER (WHERE d = 'dflt') FROM alt;
SELECT quickstep.check_table('alt');

-- CLUSTER keeps every row
CLUSTER v USING v_id;
SELECT count(*), sum(length(s)) FROM v;
SELECT quickstep.check_table('v');

RESET quickstep.enable_pushdown;
RESET search_path;
SET client_min_messages = warning;
DROP SCHEMA pax_layout CASCADE;
RESET client_min_messages;
