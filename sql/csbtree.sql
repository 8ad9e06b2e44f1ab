--
-- csbtree: the cache-sensitive B+-tree index access method.
-- Every query shape returns through csbtree (index scan, index-only scan,
-- bitmap scan) the same rows as a sequential scan.
--
SET client_min_messages = warning;

-- csb_check(query, index, ordered): run the query with the index forced as
-- a plain/index-only scan, then as a bitmap scan, then as a seqscan, and
-- compare.  Ordered queries compare in output order, others as multisets.
CREATE FUNCTION csb_run(q text, ordered bool) RETURNS text LANGUAGE plpgsql AS $$
DECLARE r text;
BEGIN
	IF ordered THEN
		EXECUTE format('SELECT md5(coalesce(string_agg(x::text, %L), %L)) || %L || count(*) FROM (%s) x',
			'|', '', ':', q) INTO r;
	ELSE
		EXECUTE format('SELECT md5(coalesce(string_agg(x::text, %L ORDER BY x::text), %L)) || %L || count(*) FROM (%s) x',
			'|', '', ':', q) INTO r;
	END IF;
	RETURN r;
END $$;

CREATE FUNCTION csb_plan(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE l text; r text := '';
BEGIN
	FOR l IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
		r := r || l || E'\n';
	END LOOP;
	RETURN r;
END $$;

CREATE FUNCTION csb_check(q text, idx text, ordered bool DEFAULT false,
	OUT nrows bigint, OUT index_used bool, OUT index_same bool,
	OUT bitmap_used bool, OUT bitmap_same bool)
LANGUAGE plpgsql AS $$
DECLARE ri text; rb text; rs text;
BEGIN
	PERFORM set_config('enable_seqscan', 'off', true);
	PERFORM set_config('enable_bitmapscan', 'off', true);
	PERFORM set_config('enable_indexscan', 'on', true);
	PERFORM set_config('enable_indexonlyscan', 'on', true);
	PERFORM set_config('enable_sort', 'off', true);
	index_used := csb_plan(q) ~ ('Index (Only )?Scan( Backward)? using ' || idx || ' ');
	ri := csb_run(q, ordered);
	PERFORM set_config('enable_sort', 'on', true);
	PERFORM set_config('enable_indexscan', 'off', true);
	PERFORM set_config('enable_indexonlyscan', 'off', true);
	PERFORM set_config('enable_bitmapscan', 'on', true);
	IF ordered THEN
		bitmap_used := NULL;
		rb := NULL;
	ELSE
		bitmap_used := csb_plan(q) ~ ('Bitmap Index Scan on ' || idx);
		rb := csb_run(q, ordered);
	END IF;
	PERFORM set_config('enable_bitmapscan', 'off', true);
	PERFORM set_config('enable_seqscan', 'on', true);
	rs := csb_run(q, ordered);
	nrows := split_part(rs, ':', 2)::bigint;
	index_same := ri = rs;
	bitmap_same := rb = rs;
	PERFORM set_config('enable_indexscan', 'on', true);
	PERFORM set_config('enable_indexonlyscan', 'on', true);
	PERFORM set_config('enable_bitmapscan', 'on', true);
END $$;

-- The access method, its operator classes, and their validity.
SELECT amname, amtype FROM pg_am WHERE amname = 'csbtree';
SELECT opc.opcname, opc.opcintype::regtype, opc.opcdefault, amvalidate(opc.oid)
  FROM pg_opclass opc JOIN pg_am am ON am.oid = opc.opcmethod
 WHERE am.amname = 'csbtree' ORDER BY 1;
SELECT amprop, pg_indexam_has_property(a.oid, amprop)
  FROM pg_am a, unnest(ARRAY['can_order', 'can_unique', 'can_multi_col', 'can_exclude', 'can_include']) amprop
 WHERE a.amname = 'csbtree';

-- One table with every supported type, duplicates and NULLs.
CREATE TABLE ty (
	id int, i2 int2, i4 int4, i8 int8, f4 float4, f8 float8, d date,
	ts timestamp, tstz timestamptz, u uuid, t text, tc text COLLATE "C", v varchar(20));
INSERT INTO ty
SELECT i,
	CASE WHEN i % 97 = 0 THEN NULL ELSE (i * 7919 % 2003) - 1000 END,
	CASE WHEN i % 89 = 0 THEN NULL ELSE (i * 7919 % 20011) - 10000 END,
	CASE WHEN i % 83 = 0 THEN NULL ELSE ((i * 7919 % 20011) - 10000)::int8 * 1000000007 END,
	CASE WHEN i % 79 = 0 THEN NULL WHEN i % 1001 = 0 THEN 'NaN' ELSE ((i * 7919 % 4001) - 2000) / 7.0 END,
	CASE WHEN i % 73 = 0 THEN NULL WHEN i % 1003 = 0 THEN '-Infinity' ELSE ((i * 7919 % 40009) - 20000) / 3.0 END,
	CASE WHEN i % 71 = 0 THEN NULL ELSE date '2000-01-01' + (i * 7919 % 5003) END,
	CASE WHEN i % 67 = 0 THEN NULL ELSE timestamp '2000-01-01' + (i * 7919 % 50021) * interval '37 minutes' END,
	CASE WHEN i % 61 = 0 THEN NULL ELSE timestamptz '2000-01-01 00:00+00' + (i * 7919 % 50021) * interval '41 minutes' END,
	CASE WHEN i % 59 = 0 THEN NULL ELSE md5((i * 7919 % 3001)::text)::uuid END,
	CASE WHEN i % 53 = 0 THEN NULL ELSE 'k' || (i * 7919 % 3001) || repeat('x', i % 7) END,
	CASE WHEN i % 47 = 0 THEN NULL ELSE chr(65 + i % 58) || (i * 7919 % 2999) END,
	CASE WHEN i % 43 = 0 THEN NULL ELSE 'v' || (i * 7919 % 1999) END
FROM generate_series(1, 20000) i;

CREATE INDEX ty_i2 ON ty USING csbtree (i2);
CREATE INDEX ty_i4 ON ty USING csbtree (i4);
CREATE INDEX ty_i8 ON ty USING csbtree (i8);
CREATE INDEX ty_f4 ON ty USING csbtree (f4);
CREATE INDEX ty_f8 ON ty USING csbtree (f8);
CREATE INDEX ty_d ON ty USING csbtree (d);
CREATE INDEX ty_ts ON ty USING csbtree (ts);
CREATE INDEX ty_tstz ON ty USING csbtree (tstz);
CREATE INDEX ty_u ON ty USING csbtree (u);
CREATE INDEX ty_t ON ty USING csbtree (t);
CREATE INDEX ty_tc ON ty USING csbtree (tc);
CREATE INDEX ty_v ON ty USING csbtree (v);
ANALYZE ty;

SELECT i.indexrelid::regclass AS index, c.levels, c.pages > 1 AS pages, c.leaf_tuples
  FROM pg_index i, quickstep.check_index(i.indexrelid) c
 WHERE i.indrelid = 'ty'::regclass ORDER BY i.indexrelid;

-- The plans: index scan, index-only scan, bitmap scan, backward scan.
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT id FROM ty WHERE i4 = 42;
EXPLAIN (COSTS OFF) SELECT i4 FROM ty WHERE i4 BETWEEN 10 AND 20;
EXPLAIN (COSTS OFF) SELECT i4 FROM ty ORDER BY i4 DESC LIMIT 5;
SET enable_indexscan = off;
EXPLAIN (COSTS OFF) SELECT id FROM ty WHERE t > 'k2' AND t < 'k3';
RESET enable_indexscan;
RESET enable_seqscan;

-- Equality, ranges, IS [NOT] NULL, per type.
SELECT q, (csb_check(q, idx)).* FROM (VALUES
	('SELECT id, i2 FROM ty WHERE i2 = 17', 'ty_i2'),
	('SELECT id, i2 FROM ty WHERE i2 < -990', 'ty_i2'),
	('SELECT id, i2 FROM ty WHERE i2 >= 995', 'ty_i2'),
	('SELECT id FROM ty WHERE i2 IS NULL', 'ty_i2'),
	('SELECT id, i4 FROM ty WHERE i4 = 4242', 'ty_i4'),
	('SELECT id, i4 FROM ty WHERE i4 > -100 AND i4 <= 100', 'ty_i4'),
	('SELECT id, i4 FROM ty WHERE i4 BETWEEN 9990 AND 20000', 'ty_i4'),
	('SELECT id FROM ty WHERE i4 IS NULL', 'ty_i4'),
	('SELECT count(*) FROM ty WHERE i4 IS NOT NULL', 'ty_i4'),
	('SELECT id, i8 FROM ty WHERE i8 = 5000000035', 'ty_i8'),
	('SELECT id, i8 FROM ty WHERE i8 > 9000000000000', 'ty_i8'),
	('SELECT id, i8 FROM ty WHERE i8 < -9990000000000', 'ty_i8'),
	('SELECT id, f4 FROM ty WHERE f4 = 1', 'ty_f4'),
	('SELECT id, f4 FROM ty WHERE f4 > 280', 'ty_f4'),
	('SELECT id, f4 FROM ty WHERE f4 = ''NaN''', 'ty_f4'),
	('SELECT id, f8 FROM ty WHERE f8 < -6660', 'ty_f8'),
	('SELECT id, f8 FROM ty WHERE f8 = ''-Infinity''', 'ty_f8'),
	('SELECT id, f8 FROM ty WHERE f8 BETWEEN -1 AND 1', 'ty_f8'),
	('SELECT id, d FROM ty WHERE d = date ''2005-06-01''', 'ty_d'),
	('SELECT id, d FROM ty WHERE d >= date ''2013-09-01''', 'ty_d'),
	('SELECT id, ts FROM ty WHERE ts < timestamp ''2000-01-03''', 'ty_ts'),
	('SELECT id, ts FROM ty WHERE ts BETWEEN ''2001-01-01'' AND ''2001-01-02''', 'ty_ts'),
	('SELECT id, tstz FROM ty WHERE tstz > ''2003-11-01 00:00+00''', 'ty_tstz'),
	('SELECT id, u FROM ty WHERE u = md5(''17'')::uuid', 'ty_u'),
	('SELECT id, u FROM ty WHERE u < ''01000000-0000-0000-0000-000000000000''', 'ty_u'),
	('SELECT id, t FROM ty WHERE t = ''k17xx''', 'ty_t'),
	('SELECT id, t FROM ty WHERE t >= ''k2999'' AND t < ''k3''', 'ty_t'),
	('SELECT id FROM ty WHERE t IS NULL', 'ty_t'),
	('SELECT id, tc FROM ty WHERE tc < ''B''', 'ty_tc'),
	('SELECT id, tc FROM ty WHERE tc > ''z2''', 'ty_tc'),
	('SELECT id, tc FROM ty WHERE tc = ''a1000''', 'ty_tc'),
	('SELECT id, v FROM ty WHERE v = ''v1234''', 'ty_v'),
	('SELECT id, v FROM ty WHERE v BETWEEN ''v10'' AND ''v11''', 'ty_v')
) AS x(q, idx);

-- Cross-type comparisons within an operator family.
SELECT q, (csb_check(q, idx)).* FROM (VALUES
	('SELECT id FROM ty WHERE i2 = 17::int4', 'ty_i2'),
	('SELECT id FROM ty WHERE i2 > 990::int8', 'ty_i2'),
	('SELECT id FROM ty WHERE i4 < -9990::int2', 'ty_i4'),
	('SELECT id FROM ty WHERE i4 >= 9990::int8', 'ty_i4'),
	('SELECT id FROM ty WHERE i8 = 0::int4', 'ty_i8'),
	('SELECT id FROM ty WHERE f4 > 280.5::float8', 'ty_f4'),
	('SELECT id FROM ty WHERE f8 <= -6660::float4', 'ty_f8'),
	('SELECT id FROM ty WHERE d < timestamp ''2000-01-05 12:00''', 'ty_d'),
	('SELECT id FROM ty WHERE ts >= date ''2003-11-20''', 'ty_ts'),
	('SELECT id FROM ty WHERE tstz < timestamp ''2000-01-02''', 'ty_tstz')
) AS x(q, idx);

-- ORDER BY in both directions, NULLS FIRST/LAST, with LIMIT.
SELECT q, (csb_check(q, idx, true)).* FROM (VALUES
	('SELECT i4 FROM ty ORDER BY i4 LIMIT 50', 'ty_i4'),
	('SELECT i4 FROM ty ORDER BY i4 DESC LIMIT 50', 'ty_i4'),
	('SELECT i4 FROM ty ORDER BY i4 DESC NULLS LAST LIMIT 50', 'ty_i4'),
	('SELECT i4 FROM ty WHERE i4 > 5000 ORDER BY i4', 'ty_i4'),
	('SELECT i4 FROM ty WHERE i4 < -5000 ORDER BY i4 DESC', 'ty_i4'),
	('SELECT i4 FROM ty ORDER BY i4', 'ty_i4'),
	('SELECT i4 FROM ty ORDER BY i4 DESC', 'ty_i4'),
	('SELECT f8 FROM ty ORDER BY f8 LIMIT 20', 'ty_f8'),
	('SELECT f4 FROM ty ORDER BY f4 DESC LIMIT 20', 'ty_f4'),
	('SELECT t FROM ty WHERE t > ''k5'' ORDER BY t LIMIT 100', 'ty_t'),
	('SELECT tc FROM ty ORDER BY tc DESC LIMIT 100', 'ty_tc'),
	('SELECT u FROM ty ORDER BY u LIMIT 100', 'ty_u'),
	('SELECT tstz FROM ty WHERE tstz < ''2001-01-01 00:00+00'' ORDER BY tstz DESC', 'ty_tstz')
) AS x(q, idx);

-- A one-column DESC index (compact leaves, inverted normalized keys).
CREATE INDEX ty_f8_desc ON ty USING csbtree (f8 DESC NULLS LAST);
DROP INDEX ty_f8;
SELECT q, (csb_check(q, 'ty_f8_desc', o)).* FROM (VALUES
	('SELECT f8 FROM ty ORDER BY f8 DESC NULLS LAST LIMIT 30', true),
	('SELECT f8 FROM ty ORDER BY f8 NULLS FIRST LIMIT 30', true),
	('SELECT f8 FROM ty WHERE f8 > 6000 ORDER BY f8 DESC', true),
	('SELECT id, f8 FROM ty WHERE f8 BETWEEN -10 AND 10', false),
	('SELECT id FROM ty WHERE f8 IS NULL', false)
) AS x(q, o);
SELECT levels, leaf_tuples FROM quickstep.check_index('ty_f8_desc');

-- Costs: with a btree index on the same column, the planner prefers btree.
CREATE INDEX ty_i4_btree ON ty (i4);
EXPLAIN (COSTS OFF) SELECT id FROM ty WHERE i4 = 42;
EXPLAIN (COSTS OFF) SELECT id FROM ty WHERE i4 BETWEEN 100 AND 120;
EXPLAIN (COSTS OFF) SELECT i4 FROM ty ORDER BY i4 LIMIT 3;
DROP INDEX ty_i4_btree;

-- Collations: the same text under "C" and the default collation, and a
-- query collation that differs from the index's (no index use then).
CREATE TABLE coll (id int, s text COLLATE "C", s2 text);
INSERT INTO coll SELECT i, x, x FROM generate_series(1, 3000) i,
	LATERAL (SELECT CASE i % 5 WHEN 0 THEN 'Zeta' WHEN 1 THEN 'alpha' WHEN 2 THEN 'Beta'
		WHEN 3 THEN 'beta ' || i ELSE '_' || i END AS x) s;
CREATE INDEX coll_s ON coll USING csbtree (s);
CREATE INDEX coll_s2 ON coll USING csbtree (s2);
ANALYZE coll;
SELECT q, (csb_check(q, idx, o)).* FROM (VALUES
	('SELECT s FROM coll WHERE s < ''a'' ORDER BY s LIMIT 10', 'coll_s', true),
	('SELECT s2 FROM coll WHERE s2 > ''Zeta'' ORDER BY s2 DESC LIMIT 10', 'coll_s2', true),
	('SELECT id FROM coll WHERE s = ''Beta''', 'coll_s', false),
	('SELECT id FROM coll WHERE s2 BETWEEN ''Beta'' AND ''beta 2''', 'coll_s2', false)
) AS x(q, idx, o);
EXPLAIN (COSTS OFF) SELECT id FROM coll WHERE s = 'Beta' COLLATE "POSIX";

-- Multi-column keys, with DESC and NULLS FIRST columns.
CREATE TABLE mc (a int, b text, c float8);
INSERT INTO mc SELECT i % 100, CASE WHEN i % 13 = 0 THEN NULL ELSE 'b' || (i % 37) END,
	CASE WHEN i % 11 = 0 THEN NULL ELSE i % 17 END
FROM generate_series(1, 30000) i;
CREATE INDEX mc_abc ON mc USING csbtree (a, b, c);
CREATE INDEX mc_desc ON mc USING csbtree (c DESC NULLS LAST, a NULLS FIRST);
ANALYZE mc;
SELECT q, (csb_check(q, idx, o)).* FROM (VALUES
	('SELECT a, b, c FROM mc WHERE a = 5 AND b = ''b5''', 'mc_abc', false),
	('SELECT a, b, c FROM mc WHERE a = 7 AND b IS NULL', 'mc_abc', false),
	('SELECT a, b, c FROM mc WHERE a BETWEEN 3 AND 4 AND c > 10', 'mc_(abc|desc)', false),
	('SELECT a, b, c FROM mc WHERE a = 9 AND b > ''b30'' AND c IS NOT NULL', 'mc_abc', false),
	('SELECT a, b, c FROM mc WHERE a > 95 ORDER BY a, b, c', 'mc_abc', true),
	('SELECT a, b, c FROM mc WHERE a < 3 ORDER BY a DESC, b DESC, c DESC', 'mc_abc', true),
	('SELECT c, a FROM mc WHERE c > 14 ORDER BY c DESC NULLS LAST, a NULLS FIRST', 'mc_desc', true),
	('SELECT c, a FROM mc ORDER BY c NULLS FIRST, a DESC NULLS LAST LIMIT 500', 'mc_desc', true),
	('SELECT c, a FROM mc WHERE c IS NULL', 'mc_desc', false),
	('SELECT c, a FROM mc WHERE c = 3 AND a < 10', 'mc_desc', false),
	('SELECT c, a FROM mc WHERE c <= 2', 'mc_desc', false)
) AS x(q, idx, o);

-- A scroll cursor changing direction in the middle of the index.
SET enable_seqscan = off;
SET enable_bitmapscan = off;
BEGIN;
DECLARE cur SCROLL CURSOR FOR SELECT a, c FROM mc WHERE a >= 98 ORDER BY a, b, c;
FETCH 3 FROM cur;
FETCH BACKWARD 2 FROM cur;
FETCH ABSOLUTE 300 FROM cur;
FETCH BACKWARD 1 FROM cur;
FETCH LAST FROM cur;
FETCH BACKWARD 2 FROM cur;
FETCH ABSOLUTE -500 FROM cur;
FETCH RELATIVE 150 FROM cur;
COMMIT;
RESET enable_seqscan;
RESET enable_bitmapscan;

-- Merge join fed by two csbtree index scans.
CREATE TABLE mj1 (k int, x int);
CREATE TABLE mj2 (k int, y int);
INSERT INTO mj1 SELECT i % 5000, i FROM generate_series(1, 20000) i;
INSERT INTO mj2 SELECT i * 3 % 7000, i FROM generate_series(1, 7000) i;
CREATE INDEX mj1_k ON mj1 USING csbtree (k);
CREATE INDEX mj2_k ON mj2 USING csbtree (k);
ANALYZE mj1, mj2;
SET enable_hashjoin = off;
SET enable_nestloop = off;
SET enable_sort = off;
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT count(*), sum(x + y) FROM mj1 JOIN mj2 USING (k);
SELECT count(*), sum(x + y) FROM mj1 JOIN mj2 USING (k);
-- long runs of equal inner keys, spanning pages: mark/restore across pages
CREATE TABLE mj3 (k int, z int);
INSERT INTO mj3 SELECT i % 40, i FROM generate_series(1, 20000) i;
CREATE INDEX mj3_k ON mj3 USING csbtree (k);
CREATE TABLE mj4 (k int, w int);
INSERT INTO mj4 SELECT i % 45, i FROM generate_series(1, 135) i;
CREATE INDEX mj4_k ON mj4 USING csbtree (k);
ANALYZE mj3, mj4;
SET enable_material = off;
EXPLAIN (COSTS OFF) SELECT count(*), sum(z::int8 * w) FROM mj4 JOIN mj3 USING (k);
SELECT count(*), sum(z::int8 * w) FROM mj4 JOIN mj3 USING (k);
RESET ALL;
SET client_min_messages = warning;
SELECT count(*), sum(x + y) FROM mj1 JOIN mj2 USING (k);
SELECT count(*), sum(z::int8 * w) FROM mj4 JOIN mj3 USING (k);

-- Page splits: 100k inserts into an existing index, ascending, descending
-- and scattered, with duplicates.
CREATE TABLE big (k int, s text);
CREATE INDEX big_k ON big USING csbtree (k);
CREATE INDEX big_s ON big USING csbtree (s);
INSERT INTO big SELECT i, 'asc' || i FROM generate_series(1, 30000) i;
INSERT INTO big SELECT i, 'desc' || i FROM generate_series(60000, 30001, -1) i;
INSERT INTO big SELECT (i * 7919) % 50000, 'dup' || (i % 10) FROM generate_series(1, 40000) i;
SELECT levels, pages > 100 AS many_pages, leaf_tuples FROM quickstep.check_index('big_k');
SELECT levels, pages > 100 AS many_pages, leaf_tuples FROM quickstep.check_index('big_s');
ANALYZE big;
SELECT q, (csb_check(q, idx, o)).* FROM (VALUES
	('SELECT k, s FROM big WHERE k = 4242', 'big_k', false),
	('SELECT k, s FROM big WHERE k BETWEEN 29990 AND 30010', 'big_k', false),
	('SELECT k FROM big WHERE k > 59990 ORDER BY k DESC', 'big_k', true),
	('SELECT k FROM big WHERE k < 10 ORDER BY k', 'big_k', true),
	('SELECT count(*) FROM big WHERE s = ''dup7''', 'big_s', false),
	('SELECT s FROM big WHERE s > ''dup'' AND s < ''dup2'' ORDER BY s', 'big_s', true)
) AS x(q, idx, o);

-- VACUUM removes the entries of deleted rows; queries stay right.
DELETE FROM big WHERE k % 3 = 0 OR s = 'dup3';
VACUUM big;
SELECT levels, pages > 100 AS many_pages, leaf_tuples,
	leaf_tuples = (SELECT count(*) FROM big) AS matches_heap
  FROM quickstep.check_index('big_k');
SELECT q, (csb_check(q, idx, o)).* FROM (VALUES
	('SELECT k, s FROM big WHERE k BETWEEN 1000 AND 2000', 'big_k', false),
	('SELECT k FROM big ORDER BY k DESC LIMIT 1000', 'big_k', true),
	('SELECT count(*) FROM big WHERE s = ''dup3''', 'big_s', false)
) AS x(q, idx, o);
INSERT INTO big SELECT i * 3, 'again' FROM generate_series(1, 20000) i;
SELECT leaf_tuples = (SELECT count(*) FROM big) AS matches_heap FROM quickstep.check_index('big_k');

-- REINDEX and CREATE INDEX CONCURRENTLY.
REINDEX INDEX big_k;
SELECT levels, leaf_tuples = (SELECT count(*) FROM big) AS matches_heap FROM quickstep.check_index('big_k');
CREATE INDEX CONCURRENTLY big_k2 ON big USING csbtree (k, s);
REINDEX INDEX CONCURRENTLY big_s;
SELECT indexrelid::regclass, indisvalid FROM pg_index WHERE indrelid = 'big'::regclass ORDER BY indexrelid;
SELECT leaf_tuples = (SELECT count(*) FROM big) AS matches_heap FROM quickstep.check_index('big_k2');
SELECT leaf_tuples = (SELECT count(*) FROM big) AS matches_heap FROM quickstep.check_index('big_s');
SELECT q, (csb_check(q, idx, o)).* FROM (VALUES
	('SELECT k, s FROM big WHERE k = 3000 AND s = ''again''', 'big_k2', false),
	('SELECT count(*) FROM big WHERE s = ''again''', 'big_s', false)
) AS x(q, idx, o);

-- Unlogged tables (the init fork) and empty tables.
CREATE UNLOGGED TABLE ul (k int);
CREATE INDEX ul_k ON ul USING csbtree (k);
SELECT * FROM quickstep.check_index('ul_k');
INSERT INTO ul SELECT generate_series(1, 1000);
SELECT * FROM quickstep.check_index('ul_k');
SET enable_seqscan = off;
SELECT count(*) FROM ul WHERE k > 990;
RESET enable_seqscan;

-- UNIQUE: build-time and insert-time checks, NULLs, NULLS NOT DISTINCT,
-- multi-column keys, updates, an exclusion constraint (ON CONFLICT: csbtree_upsert).
-- PostgreSQL 15 warns at every unique csbtree build (tested in csbtree_upsert).
SET client_min_messages = error;
CREATE TABLE un (k int, v text);
INSERT INTO un SELECT i, 'x' FROM generate_series(1, 20000) i;
INSERT INTO un VALUES (77, 'again');
CREATE UNIQUE INDEX un_k ON un USING csbtree (k);
DELETE FROM un WHERE v = 'again';
CREATE UNIQUE INDEX un_k ON un USING csbtree (k);
SELECT indisunique FROM pg_index WHERE indexrelid = 'un_k'::regclass;
INSERT INTO un VALUES (5, 'dup');
INSERT INTO un VALUES (20001, 'a'), (20001, 'b');
INSERT INTO un VALUES (NULL, 'n1'), (NULL, 'n2');
INSERT INTO un VALUES (20001, 'new'), (20002, 'new3');
SELECT k, v FROM un WHERE k > 20000 OR k IS NULL ORDER BY k, v;
UPDATE un SET k = k + 100000 WHERE k <= 10000;
UPDATE un SET k = k - 100000 WHERE k > 100000;
UPDATE un SET k = 1 WHERE k = 2;
SELECT levels, leaf_tuples >= 20004 AS all_entries FROM quickstep.check_index('un_k');
VACUUM un;
SELECT leaf_tuples = (SELECT count(*) FROM un) AS matches_heap FROM quickstep.check_index('un_k');
SET enable_seqscan = off;
SELECT count(*), count(DISTINCT k) FROM un WHERE k BETWEEN 1 AND 30000;
RESET enable_seqscan;
INSERT INTO un SELECT 30000 + i % 10, 'burst' FROM generate_series(1, 100) i;
SELECT count(*) FROM un WHERE k >= 30000;
CREATE TABLE un2 (a int, b text);
INSERT INTO un2 VALUES (1, 'a'), (1, 'b'), (2, NULL), (2, NULL);
CREATE UNIQUE INDEX un2_ab ON un2 USING csbtree (a, b);
CREATE UNIQUE INDEX un2_nnd ON un2 USING csbtree (a, b) NULLS NOT DISTINCT;
DELETE FROM un2 WHERE ctid = (SELECT min(ctid) FROM un2 WHERE a = 2);
CREATE UNIQUE INDEX un2_nnd ON un2 USING csbtree (a, b) NULLS NOT DISTINCT;
INSERT INTO un2 VALUES (1, 'a');
INSERT INTO un2 VALUES (2, NULL);
INSERT INTO un2 VALUES (3, NULL);
ALTER TABLE un2 ADD CONSTRAINT un2_ex EXCLUDE USING csbtree (a WITH =);
DELETE FROM un2 WHERE a = 1 AND b = 'b';
ALTER TABLE un2 ADD CONSTRAINT un2_ex EXCLUDE USING csbtree (a WITH =);
INSERT INTO un2 VALUES (3, 'c');
SELECT * FROM un2 ORDER BY a, b;
REINDEX TABLE un2;
CREATE UNIQUE INDEX CONCURRENTLY un_k2 ON un (k);
CREATE UNIQUE INDEX CONCURRENTLY un_v ON un USING csbtree (v);
SELECT indexrelid::regclass, indisvalid FROM pg_index WHERE indrelid = 'un'::regclass ORDER BY indexrelid;
DROP INDEX un_v;
RESET client_min_messages;

-- Bad input: clear errors.
CREATE TABLE bad (j jsonb, p point, k int, t text);
CREATE INDEX ON bad USING csbtree (j);
CREATE INDEX ON bad USING csbtree (p);
CREATE INDEX ON bad USING csbtree (k) INCLUDE (t);
CREATE INDEX ON bad USING csbtree (k) WITH (fillfactor = 50);
INSERT INTO bad (t) VALUES (repeat('x', 3000));
CREATE INDEX bad_t ON bad USING csbtree (t);
CREATE INDEX bad_k ON bad USING csbtree (k);
INSERT INTO bad (k, t) VALUES (1, (SELECT string_agg(md5(i::text), '') FROM generate_series(1, 100) i));
CREATE INDEX bad_bt ON bad (k);
SELECT * FROM quickstep.check_index('bad_bt');
SELECT * FROM quickstep.check_index('bad');
CLUSTER bad USING bad_k;
