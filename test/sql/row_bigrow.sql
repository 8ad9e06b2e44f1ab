-- Row layout :am (set by the caller, sql/<layout>_bigrow.sql).
-- A record too big for the fillfactor goes on an empty page (the free space
-- map request is capped), as on heap (core insert test).
CREATE TABLE large_tuple_test (a int, b text) USING :am WITH (fillfactor = 10);
ALTER TABLE large_tuple_test ALTER COLUMN b SET STORAGE plain;
INSERT INTO large_tuple_test (select 1, NULL);
INSERT INTO large_tuple_test (select 2, repeat('a', 1000));
SELECT pg_size_pretty(pg_relation_size('large_tuple_test'::regclass, 'main'));
INSERT INTO large_tuple_test (select 3, NULL);
INSERT INTO large_tuple_test (select 4, repeat('a', 8126));
SELECT count(*) FROM large_tuple_test;
SELECT quickstep.check_table('large_tuple_test');
DROP TABLE large_tuple_test;

-- Rows too big for the fillfactor get a nearly empty page each, as heap gives
-- them (heap: 40 pages for 40 rows; core's stats test counts on it).  Counted
-- before COMMIT, while every row is still where it was first written.
CREATE TABLE ff_wide (n char(1000)) USING :am
  WITH (fillfactor = 10, autovacuum_enabled = off);
BEGIN;
INSERT INTO ff_wide SELECT 'x' FROM generate_series(1, 40);
SELECT count(DISTINCT (ctid::text::point)[0]) AS pages, count(*) AS rows
  FROM ff_wide;
COMMIT;
SELECT quickstep.check_table('ff_wide');
DROP TABLE ff_wide;

-- Every row heap takes is taken: a record the layout's own pages cannot hold
-- (PAX, HPL: an untoastable 8 kB row; PAX: more columns than its directory
-- holds) goes on an NSM page of the same table (include/page/layout.h).
CREATE TABLE mixed_rows (id int PRIMARY KEY, k int, b text) USING :am;
ALTER TABLE mixed_rows ALTER COLUMN b SET STORAGE plain;
INSERT INTO mixed_rows SELECT g, g % 10, repeat('s', 20) FROM generate_series(1, 150) g;
INSERT INTO mixed_rows SELECT g, g % 10, repeat(chr(64 + g % 26), 8000)
  FROM generate_series(301, 305) g;
INSERT INTO mixed_rows SELECT g, g % 10, repeat('s', 20) FROM generate_series(151, 300) g;
-- each big row has a page of its own
SELECT count(DISTINCT (ctid::text::point)[0]) AS big_pages
  FROM mixed_rows WHERE id > 300;
-- read through every path: seqscan with and without pushdown, index, bitmap
SET quickstep.enable_pushdown = on;
SELECT id, k, length(b), left(b, 3) FROM mixed_rows WHERE k = 2 AND id > 290 ORDER BY id;
SELECT sum(length(b)), count(*) FROM mixed_rows;
SET quickstep.enable_pushdown = off;
SELECT id, k, length(b), left(b, 3) FROM mixed_rows WHERE k = 2 AND id > 290 ORDER BY id;
RESET quickstep.enable_pushdown;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT id, length(b), xmin = (SELECT xmin FROM mixed_rows WHERE id = 301) AS same_insert
  FROM mixed_rows WHERE id IN (3, 303) ORDER BY id;
SET enable_indexscan = off;
SET enable_bitmapscan = on;
SELECT id, length(b) FROM mixed_rows WHERE id BETWEEN 299 AND 302 ORDER BY id;
RESET enable_seqscan;
RESET enable_bitmapscan;
RESET enable_indexscan;
SELECT id, length(b) FROM mixed_rows WHERE ctid = (SELECT ctid FROM mixed_rows WHERE id = 304);
-- updates between the formats, both ways; locks; RETURNING
BEGIN;
SELECT id FROM mixed_rows WHERE id IN (5, 305) ORDER BY id FOR UPDATE;
UPDATE mixed_rows SET b = repeat('u', 8000) WHERE id = 5 RETURNING id, length(b);
UPDATE mixed_rows SET b = 'small again' WHERE id = 305 RETURNING id, b;
UPDATE mixed_rows SET k = k + 100 WHERE id = 304 RETURNING id, k, length(b);
COMMIT;
DELETE FROM mixed_rows WHERE id = 303;
SELECT id, k, length(b) FROM mixed_rows WHERE id IN (5, 303, 304, 305) ORDER BY id;
SELECT quickstep.check_table('mixed_rows');
-- VACUUM empties the big rows' pages (not the last ones: VACUUM would
-- truncate those); small rows then reuse them
DELETE FROM mixed_rows WHERE length(b) > 100 AND id <> 304;
VACUUM mixed_rows;
DELETE FROM mixed_rows WHERE length(b) > 100;
VACUUM mixed_rows;
SELECT pg_relation_size('mixed_rows') / current_setting('block_size')::int AS pages_before \gset
INSERT INTO mixed_rows SELECT g, g % 10, repeat('r', 20) FROM generate_series(1001, 1400) g;
SELECT pg_relation_size('mixed_rows') / current_setting('block_size')::int <= :pages_before AS reused;
SELECT count(*), sum(length(b)) FROM mixed_rows;
SELECT quickstep.check_table('mixed_rows');
-- rewrites keep both kinds of row
INSERT INTO mixed_rows VALUES (2000, 1, repeat('v', 8100));
VACUUM FULL mixed_rows;
SELECT count(*), sum(length(b)) FROM mixed_rows;
SELECT id, length(b) FROM mixed_rows WHERE id = 2000;
SELECT quickstep.check_table('mixed_rows');
DROP TABLE mixed_rows;

-- more columns than a PAX page directory holds (about 330)
SET default_table_access_method = :'am';
DO $$
BEGIN
  EXECUTE format('CREATE TABLE wide_cols (%s)',
                 (SELECT string_agg(format('c%s int', g), ', ')
                    FROM generate_series(1, 600) g));
END $$;
RESET default_table_access_method;
SELECT amname = :'am' AS of_the_layout FROM pg_class c JOIN pg_am a ON a.oid = c.relam
  WHERE c.relname = 'wide_cols';
INSERT INTO wide_cols (c1, c300, c600) SELECT g, g * 2, g * 3 FROM generate_series(1, 50) g;
SELECT count(*), sum(c1), sum(c300), sum(c600), count(c2) FROM wide_cols;
UPDATE wide_cols SET c599 = c1 WHERE c1 <= 10;
SELECT sum(c599) FROM wide_cols WHERE c600 > 0;
SELECT quickstep.check_table('wide_cols');
DROP TABLE wide_cols;
