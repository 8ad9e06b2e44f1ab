-- Row layout :am (set by the caller, sql/<layout>_nulls.sql).
-- Issue 11: records whose NULLs fall in different columns share pages (an
-- HPL page used to keep null bits only for the NULLs of its first record
-- and refuse the next record whose NULLs differed: one page per row), and
-- pages that churn NULLs, short unaligned values and long aligned ones stay
-- sound under VACUUM and pruning.  Sizes are bounds against heap twins.

-- exactly one NULL per row, in b, c or d in turn
CREATE TABLE n1_heap (a int, b int, c int, d int) USING heap;
CREATE TABLE n1 (LIKE n1_heap) USING :am;
INSERT INTO n1_heap SELECT g, CASE WHEN g % 3 <> 0 THEN g END,
  CASE WHEN g % 3 <> 1 THEN g END, CASE WHEN g % 3 <> 2 THEN g END
  FROM generate_series(1, 10000) g;
INSERT INTO n1 SELECT * FROM n1_heap;
SELECT pg_relation_size('n1') <= 1.15 * pg_relation_size('n1_heap') AS n1_size_ok;
SELECT count(*), count(a), count(b), count(c), count(d), sum(b), sum(c), sum(d) FROM n1;
SELECT (SELECT count(*) FROM (SELECT * FROM n1 EXCEPT ALL SELECT * FROM n1_heap) x) AS n1_not_heap;
SELECT quickstep.check_table('n1');
VACUUM FULL n1;
SELECT pg_relation_size('n1') <= 1.15 * pg_relation_size('n1_heap') AS n1_full_size_ok;

-- overlapping NULL patterns
CREATE TABLE n2_heap (a int, b int, c int, d int) USING heap;
CREATE TABLE n2 (LIKE n2_heap) USING :am;
INSERT INTO n2_heap SELECT g, nullif(g % 3, 0), nullif(g % 5, 0), nullif(g % 7, 0)
  FROM generate_series(1, 10000) g;
INSERT INTO n2 SELECT * FROM n2_heap;
SELECT pg_relation_size('n2') <= 1.15 * pg_relation_size('n2_heap') AS n2_size_ok;
SELECT count(b), count(c), count(d), sum(b), sum(c), sum(d) FROM n2;
SELECT quickstep.check_table('n2');

-- a schema of many types, about 10 % NULLs in each nullable column
CREATE FUNCTION nth(g int, c int) RETURNS bool LANGUAGE sql IMMUTABLE
  AS $$ SELECT abs(hashint8(g::int8 * 31 + c)) % 10 <> 0 $$;
CREATE TABLE n3_heap (id int8 NOT NULL, customer int4, created timestamptz,
  amount numeric(12,2), status text, email text, note text, qty int2,
  flag bool, ref uuid, score float8, due date) USING heap;
CREATE TABLE n3 (LIKE n3_heap) USING :am;
INSERT INTO n3_heap SELECT g,
  CASE WHEN nth(g, 1) THEN g % 5000 END,
  CASE WHEN nth(g, 2) THEN timestamptz '2024-01-01 00:00+00' + g * interval '1 minute' END,
  CASE WHEN nth(g, 3) THEN (g % 100000) / 100.0 END,
  CASE WHEN nth(g, 4) THEN (ARRAY['new', 'paid', 'shipped', 'returned'])[1 + g % 4] END,
  CASE WHEN nth(g, 5) THEN 'user' || g || '@example.com' END,
  CASE WHEN nth(g, 6) THEN repeat(md5(g::text), 1 + g % 3) END,
  CASE WHEN nth(g, 7) THEN (g % 100)::int2 END,
  CASE WHEN nth(g, 8) THEN g % 2 = 0 END,
  CASE WHEN nth(g, 9) THEN md5(g::text)::uuid END,
  CASE WHEN nth(g, 10) THEN g / 7.0 END,
  CASE WHEN nth(g, 11) THEN date '2024-01-01' + g % 365 END
  FROM generate_series(1, 5000) g;
INSERT INTO n3 SELECT * FROM n3_heap;
-- HPL's fixed fields (offsets, prefixes, MVCC fields) make it larger than
-- heap whatever the NULLs; one page per distinct NULL pattern made it 25x
SELECT pg_relation_size('n3') <= 1.5 * pg_relation_size('n3_heap') AS n3_size_ok;
SELECT (SELECT count(*) FROM (SELECT * FROM n3 EXCEPT ALL SELECT * FROM n3_heap) x) AS n3_not_heap,
       (SELECT count(*) FROM (SELECT * FROM n3_heap EXCEPT ALL SELECT * FROM n3) x) AS heap_not_n3;
SELECT quickstep.check_table('n3');

-- a page loses all its NULLs, then gets new ones (HPL: null bits dropped
-- by compaction and made again)
CREATE TABLE n4 (id int, a int, t text, u uuid) USING :am WITH (autovacuum_enabled = off);
INSERT INTO n4 SELECT g, CASE WHEN g % 4 <> 0 THEN g END,
  CASE WHEN g % 5 <> 0 THEN 't' || g END,
  CASE WHEN g % 6 <> 0 THEN md5(g::text)::uuid END FROM generate_series(1, 100) g;
DELETE FROM n4 WHERE a IS NULL OR t IS NULL OR u IS NULL;
VACUUM n4;
SELECT count(*), count(a), count(t), count(u) FROM n4;
INSERT INTO n4 VALUES (1000, NULL, 'n', NULL), (1001, 1, NULL, NULL), (1002, NULL, NULL, NULL);
SELECT id, a, t, u IS NULL AS u_null FROM n4 WHERE id >= 1000 OR id <= 3 ORDER BY id;
SELECT quickstep.check_table('n4');

-- NOT NULL columns, then DROP NOT NULL: NULLs arrive on pages formatted
-- before (HPL: they go to other pages) and after
CREATE TABLE n5 (a int NOT NULL, b text NOT NULL, c int) USING :am;
INSERT INTO n5 SELECT g, 'x' || g, g FROM generate_series(1, 1000) g;
ALTER TABLE n5 ALTER a DROP NOT NULL, ALTER b DROP NOT NULL;
INSERT INTO n5 SELECT g, NULL, NULL FROM generate_series(1001, 1200) g;
INSERT INTO n5 SELECT NULL, 'y', g FROM generate_series(1201, 1300) g;
DELETE FROM n5 WHERE a <= 500;
VACUUM n5;
INSERT INTO n5 SELECT g, NULL, g FROM generate_series(2001, 2500) g;
SELECT count(*), count(a), count(b), count(c), sum(a), sum(c) FROM n5;
SELECT quickstep.check_table('n5');
VACUUM FULL n5;
SELECT count(*), count(a), count(b), count(c), sum(a), sum(c) FROM n5;
SELECT quickstep.check_table('n5');

-- one session's version of issue 11's concurrent run: a text column
-- toggled between NULL and a compressed 4 kB value, with VACUUM; every
-- value must stay in its own row
CREATE FUNCTION tv(id int) RETURNS text LANGUAGE sql IMMUTABLE
  AS $$ SELECT repeat(lpad(id::text, 8, '0') || ':', 455) $$;
CREATE TABLE n6 (id int PRIMARY KEY, s text, v text, w int) USING :am;
INSERT INTO n6 SELECT g, left(md5(g::text), g % 13), CASE WHEN g % 2 = 0 THEN tv(g) END, 0
  FROM generate_series(1, 200) g;
SELECT format('UPDATE n6 SET v = CASE WHEN v IS NULL THEN tv(id) END, w = w + 1 WHERE id %% %s = %s',
              3 + r % 5, r % 3),
       CASE WHEN r % 4 = 0 THEN 'VACUUM n6' ELSE 'SELECT 1' END
  FROM generate_series(1, 24) r \gexec
SELECT count(*), count(v), sum(w) FROM n6;
SELECT count(*) AS wrong_rows FROM n6
  WHERE (v IS NOT NULL AND v <> tv(id)) OR s <> left(md5(id::text), id % 13);
SELECT quickstep.check_table('n6');
-- heap's answer for the same statements
CREATE TABLE n6_heap (id int PRIMARY KEY, s text, v text, w int) USING heap;
INSERT INTO n6_heap SELECT g, left(md5(g::text), g % 13), CASE WHEN g % 2 = 0 THEN tv(g) END, 0
  FROM generate_series(1, 200) g;
SELECT format('UPDATE n6_heap SET v = CASE WHEN v IS NULL THEN tv(id) END, w = w + 1 WHERE id %% %s = %s',
              3 + r % 5, r % 3)
  FROM generate_series(1, 24) r \gexec
SELECT (SELECT count(*) FROM (SELECT * FROM n6 EXCEPT ALL SELECT * FROM n6_heap) x) AS n6_not_heap;

-- issue 11's deterministic churn, shortened: NULLs, 1-21-byte values (a
-- 1-byte header, unaligned) and 150-250-byte values (4-byte header,
-- int-aligned); DELETE ~30 %, VACUUM, INSERT 50, DELETE ~10 % of the NULL
-- rows, VACUUM, check; the same statements on a heap twin
CREATE FUNCTION cv(g int) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN g % 3 = 0 THEN NULL
              WHEN g % 3 = 1 THEN left(md5(g::text), 1 + g % 21)
              ELSE left(repeat(md5(g::text), 8), 150 + g % 101) END $$;
CREATE TABLE n7 (id int, v text, w int) USING :am WITH (autovacuum_enabled = off);
CREATE TABLE n7_heap (id int, v text, w int) USING heap WITH (autovacuum_enabled = off);
ALTER TABLE n7 ALTER v SET STORAGE main;
ALTER TABLE n7_heap ALTER v SET STORAGE main;
INSERT INTO n7 SELECT g, cv(g), g % 97 FROM generate_series(1, 1000) g;
INSERT INTO n7_heap SELECT * FROM n7;
SELECT format('DELETE FROM %s WHERE hashint4(id # %s) %% 10 < 3', t, r * 7919),
       format('VACUUM %s', t),
       format('INSERT INTO %s SELECT g, cv(g), g %% 97 FROM generate_series(%s, %s) g',
              t, 1000 + r * 50 - 49, 1000 + r * 50),
       format('DELETE FROM %s WHERE v IS NULL AND hashint4(id # %s # 77) %% 10 = 0', t, r * 7919),
       format('VACUUM %s', t)
  FROM generate_series(1, 12) r, (VALUES ('n7'), ('n7_heap')) v(t) ORDER BY r, t \gexec
SELECT quickstep.check_table('n7') = (SELECT count(*) FROM n7_heap) AS n7_checked;
SELECT (SELECT count(*) FROM (SELECT * FROM n7 EXCEPT ALL SELECT * FROM n7_heap) x) AS n7_not_heap,
       (SELECT count(*) FROM (SELECT * FROM n7_heap EXCEPT ALL SELECT * FROM n7) x) AS heap_not_n7;
