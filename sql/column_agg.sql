-- Aggregate pushdown into QuickstepScan over quickstep_column tables (issue
-- 13, paper 000 section 4.7): Finalize Aggregate over a scan computing the
-- partial states.  Every query runs on the column table with pushdown, on
-- the column table without it and on a heap table of the same rows: the
-- answers must be the same.
CREATE SCHEMA column_agg;
SET search_path = column_agg, public;

-- run(query): its rows through RETURN QUERY, which may run parallel
CREATE FUNCTION run(q text) RETURNS SETOF text LANGUAGE plpgsql AS $f$
BEGIN
	RETURN QUERY EXECUTE q;
END
$f$;

-- chk(query with %1$I for the table): 'pushed' when the column table's
-- plan computes partial aggregates in the scan (and 'parallel' when under a
-- Gather), then whether the rows equal heap's and the column table's
-- without aggregate pushdown, then the rows (long ones cut, with their md5).
CREATE FUNCTION chk(q text, par bool DEFAULT false) RETURNS text LANGUAGE plpgsql AS $f$
DECLARE
	pushed		bool := false;
	gather		bool := false;
	line		text;
	agg			text := 'SELECT coalesce(string_agg(x::text, '' '' ORDER BY x::text), ''(none)'') FROM (%s) x';
	r_col		text;
	r_heap		text;
	r_off		text;
BEGIN
	IF par THEN
		PERFORM set_config('parallel_setup_cost', '0', true);
		PERFORM set_config('parallel_tuple_cost', '0', true);
		PERFORM set_config('min_parallel_table_scan_size', '0', true);
		PERFORM set_config('max_parallel_workers_per_gather', '2', true);
		PERFORM set_config('parallel_leader_participation', 'off', true);
	ELSE
		PERFORM set_config('max_parallel_workers_per_gather', '0', true);
	END IF;
	FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || format(q, 'ct') LOOP
		pushed := pushed OR line LIKE '%Partial Aggregates Pushed%';
		gather := gather OR line LIKE '%Gather%';
	END LOOP;
	SELECT x INTO r_col FROM run(format(agg, format(q, 'ct'))) x;
	SELECT x INTO r_heap FROM run(format(agg, format(q, 'ht'))) x;
	PERFORM set_config('quickstep.enable_agg_pushdown', 'off', true);
	SELECT x INTO r_off FROM run(format(agg, format(q, 'ct'))) x;
	PERFORM set_config('quickstep.enable_agg_pushdown', 'on', true);
	RETURN CASE WHEN pushed THEN 'pushed' ELSE 'not pushed' END ||
		CASE WHEN gather THEN ' parallel' ELSE '' END ||
		CASE WHEN r_col = r_heap AND r_col = r_off THEN ' same: '
			ELSE ' DIFFERENT heap=' || r_heap || ' off=' || r_off || ' col=' END ||
		CASE WHEN length(r_col) <= 90 THEN r_col
			ELSE left(r_col, 60) || '... md5 ' || left(md5(r_col), 12) END;
END
$f$;

-- the lines of EXPLAIN ANALYZE that PG 15 and 18 print alike
CREATE FUNCTION explain_lines(q text) RETURNS SETOF text LANGUAGE plpgsql AS $f$
DECLARE
	l			text;
BEGIN
	FOR l IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
		IF l ~ 'Pushed|Storage|Blocks|Aggregate|Scan' THEN
			RETURN NEXT regexp_replace(l, ' \(actual.*', '');
		END IF;
	END LOOP;
END
$f$;

-- does the plan compute partial aggregates in the scan?
CREATE FUNCTION pushed(q text) RETURNS bool LANGUAGE plpgsql AS $f$
DECLARE
	l			text;
BEGIN
	FOR l IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
		IF l LIKE '%Partial Aggregates Pushed%' THEN
			RETURN true;
		END IF;
	END LOOP;
	RETURN false;
END
$f$;

-- the statements every data state below is checked with
CREATE TABLE queries (id serial, q text);
INSERT INTO queries (q) VALUES
	('SELECT count(*) FROM %1$I'),
	('SELECT count(a), count(t), count(f), count(*) FROM %1$I'),
	('SELECT sum(a), avg(a), min(a), max(a) FROM %1$I'),
	('SELECT sum(b), avg(b), min(b), max(b) FROM %1$I'),
	('SELECT sum(s), avg(s), min(s), max(s) FROM %1$I'),
	('SELECT min(d), max(d), min(ts), max(ts), min(tz), max(tz) FROM %1$I'),
	('SELECT sum(f), min(f), max(f), sum(r), min(r), max(r) FROM %1$I'),
	('SELECT count(*), sum(a), min(b), max(d) FROM %1$I WHERE a > 5000'),
	('SELECT count(*), sum(b), avg(s) FROM %1$I WHERE a BETWEEN 3000 AND 9000 AND g <> 2'),
	('SELECT count(*), max(a) FROM %1$I WHERE t = ''t3'''),
	('SELECT count(*), sum(a) FROM %1$I WHERE g IN (1, 4) AND f IS NOT NULL'),
	('SELECT count(*), count(a), sum(a) FROM %1$I WHERE a IS NULL'),
	('SELECT count(*), sum(a), avg(a), min(a), sum(f) FROM %1$I WHERE a < 0'),
	('SELECT g, count(*), sum(a), avg(a), min(a), max(a) FROM %1$I GROUP BY g'),
	('SELECT g, k, count(*), sum(b), avg(b), min(d) FROM %1$I GROUP BY g, k'),
	('SELECT s, count(*) FROM %1$I WHERE a > 100 GROUP BY s HAVING count(*) > 187'),
	('SELECT d, max(ts) FROM %1$I WHERE g = 2 GROUP BY d'),
	('SELECT g FROM %1$I GROUP BY g'),
	('SELECT g, count(*) FROM %1$I WHERE a < 0 GROUP BY g'),
	('SELECT sum(a) + 1, max(a) - min(a), count(*) * 2 FROM %1$I WHERE g = 3'),
	('SELECT t, count(*), sum(a), max(d) FROM %1$I GROUP BY t'),
	('SELECT t, k, count(*), min(ts) FROM %1$I WHERE a > 1000 AND t <> ''t4'' GROUP BY t, k'),
	('SELECT count(*), sum(a) FROM %1$I WHERE 1 = 0'),
	('SELECT count(*), sum(a) FROM %1$I WHERE a > 10 AND current_setting(''search_path'') = ''nowhere'''),
	-- few groups a chunk, each aggregate a group at a time (int2, int4, int8)
	('SELECT k, count(s), sum(s), min(s), max(s), min(b), max(b), count(a), count(*) FROM %1$I GROUP BY k'),
	('SELECT g, k, count(*), sum(a), min(s), max(b), avg(s) FROM %1$I WHERE g < 4 GROUP BY g, k'),
	-- rescans of a text-keyed aggregate (its text table was freed by the reset)
	('SELECT o.g, (SELECT string_agg(t || ''='' || c, '','' ORDER BY t) FROM (SELECT t, count(*) c FROM %1$I x WHERE x.g = o.g GROUP BY t) s) FROM (VALUES (0), (1), (2)) o(g)');

SET quickstep.column_delta_rows = 0;
CREATE TABLE ct (g int4, a int4, b int8, s int2, f float8, r float4, d date,
				 ts timestamp, tz timestamptz, t text, k bool)
	USING quickstep_column WITH (quickstep.rows_per_block = 3000);
CREATE TABLE ht (LIKE ct);
INSERT INTO ct
	SELECT i % 5, CASE WHEN i % 11 = 0 THEN NULL ELSE i END,
		   i::int8 * 1000003, (i % 97)::int2,
		   CASE WHEN i % 13 = 0 THEN NULL ELSE (i % 400) * 0.25 END,
		   (i % 40) * 0.5, date '2024-01-01' + i % 365,
		   timestamp '2024-01-01' + i * interval '1 minute',
		   timestamptz '2024-01-01 00:00+00' + i * interval '1 hour',
		   CASE WHEN i % 17 = 0 THEN NULL ELSE 't' || (i % 10) END, i % 3 = 0
	FROM generate_series(1, 20000) i;
INSERT INTO ht SELECT * FROM ct;
RESET quickstep.column_delta_rows;
ANALYZE ct, ht;

-- the plan shapes
EXPLAIN (COSTS OFF) SELECT count(*), sum(a), avg(a), min(a), max(a) FROM ct;
EXPLAIN (COSTS OFF) SELECT sum(b) FROM ct WHERE a > 5000 AND t = 't1';
EXPLAIN (COSTS OFF) SELECT g, count(*), sum(a) FROM ct GROUP BY g ORDER BY g;
EXPLAIN (COSTS OFF) SELECT g, count(*) FROM ct GROUP BY g HAVING sum(a) > 0;
-- blocks without a qual or a deleted row answer count, min and max from
-- their headers
SELECT explain_lines('SELECT count(*), count(a), min(a), max(b), min(d), max(tz) FROM ct');
SELECT explain_lines('SELECT count(*), sum(a) FROM ct WHERE a > 15000');

SELECT id, chk(q) FROM queries ORDER BY id;
SELECT id, chk(q, true) FROM queries ORDER BY id;
-- the parallel plan
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF) SELECT g, count(*), sum(a) FROM ct WHERE a > 10 GROUP BY g;
-- the block counters: the leader's and the workers' together, as serial
SELECT explain_lines('SELECT count(*), sum(a) FROM ct WHERE a > 15000');
SELECT explain_lines('SELECT count(*), count(a), min(a), max(b), min(d), max(tz) FROM ct');
-- the Gather restarted by a join: the workers' blocks handed out anew
SET parallel_leader_participation = off;
SET enable_material = off;
EXPLAIN (COSTS OFF)
SELECT * FROM (SELECT count(*), sum(a) FROM ct WHERE g = 3) ss RIGHT JOIN (VALUES (1), (2), (3)) v(k) ON true;
SELECT * FROM (SELECT count(*), sum(a) FROM ct WHERE g = 3) ss RIGHT JOIN (VALUES (1), (2), (3)) v(k) ON true;
SELECT * FROM (SELECT count(*), sum(a) FROM ht WHERE g = 3) ss RIGHT JOIN (VALUES (1), (2), (3)) v(k) ON true;
RESET parallel_leader_participation;
RESET enable_material;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;

-- deleted and updated main rows (the delete map), rows in the delta
DELETE FROM ct WHERE a % 7 = 0;
DELETE FROM ht WHERE a % 7 = 0;
UPDATE ct SET a = a + 1, f = f * 2 WHERE g = 1 AND a < 8000;
UPDATE ht SET a = a + 1, f = f * 2 WHERE g = 1 AND a < 8000;
INSERT INTO ct VALUES (1, 40000, 5, 1, 1.5, 2, '2030-01-01', '2030-01-01', '2030-01-01', 'new', true),
	(7, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
	(2, -5, -7, -1, -0.25, -1, '1999-01-01', '1999-01-01', '1999-01-01', 't3', false);
INSERT INTO ht VALUES (1, 40000, 5, 1, 1.5, 2, '2030-01-01', '2030-01-01', '2030-01-01', 'new', true),
	(7, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
	(2, -5, -7, -1, -0.25, -1, '1999-01-01', '1999-01-01', '1999-01-01', 't3', false);
SELECT explain_lines('SELECT count(*), min(a), max(b) FROM ct');
SELECT id, chk(q) FROM queries ORDER BY id;
SELECT id, chk(q, true) FROM queries ORDER BY id;
-- the same rows after a merge
SELECT quickstep.merge('ct') IS NOT NULL AS merged;
SELECT id, chk(q) FROM queries ORDER BY id;

-- every row deleted, then an empty table
DELETE FROM ct;
DELETE FROM ht;
SELECT id, chk(q) FROM queries ORDER BY id;
TRUNCATE ct, ht;
SELECT id, chk(q) FROM queries WHERE id IN (1, 3, 14) ORDER BY id;

-- int8 sums near the limits (numeric results), float NaN and Infinity
INSERT INTO ct (g, b, f) VALUES (1, 9223372036854775807, 'NaN'), (1, 9223372036854775807, 1),
	(2, -9223372036854775808, 'Infinity'), (2, -9223372036854775808, '-Infinity'),
	(3, 9223372036854775807, 'Infinity'), (3, 1, 2), (4, 0, '-0'), (4, 0, '0'), (4, 0, '-0'),
	(5, 0, '0'), (5, 0, '-0'), (5, 0, '0');
INSERT INTO ht SELECT * FROM ct;
SELECT chk('SELECT sum(b), avg(b), min(b), max(b), sum(f), min(f), max(f) FROM %1$I');
SELECT chk('SELECT g, sum(b), avg(b), sum(f), min(f), max(f) FROM %1$I GROUP BY g');
SELECT chk('SELECT g, sum(b) FROM %1$I WHERE b > 0 GROUP BY g');
SELECT sum(b), avg(b) FROM ct;
-- the same rows in main blocks, through the pushed aggregate: 5000 neutral
-- rows (b = 0, f = 0, a group of their own) so that the planner pushes it
-- (with 12 rows a scan's rows aggregated above cost less)
INSERT INTO ct (g, b, f) SELECT 6, 0, 0 FROM generate_series(1, 5000);
INSERT INTO ht (g, b, f) SELECT 6, 0, 0 FROM generate_series(1, 5000);
SELECT quickstep.merge('ct') IS NOT NULL AS merged;
SELECT chk('SELECT sum(b), avg(b), min(b), max(b), sum(f), min(f), max(f) FROM %1$I');
SELECT chk('SELECT g, sum(b), avg(b), sum(f), min(f), max(f) FROM %1$I GROUP BY g');
-- overflow: the same error as heap
TRUNCATE ct, ht;
INSERT INTO ct (f) VALUES (1e308), (1e308);
INSERT INTO ht SELECT * FROM ct;
SELECT sum(f) FROM ht;
SELECT sum(f) FROM ct;
EXPLAIN (COSTS OFF) SELECT sum(f) FROM ct;

-- Parameters: a generic plan's, and a correlated subquery's (rescans)
INSERT INTO ct (g, a) SELECT i % 3, i FROM generate_series(1, 100) i;
PREPARE p(int) AS SELECT count(*), sum(a) FROM ct WHERE a > $1;
SET plan_cache_mode = force_generic_plan;
EXPLAIN (COSTS OFF) EXECUTE p(10);
EXECUTE p(10);
EXECUTE p(90);
RESET plan_cache_mode;
SELECT o.g, (SELECT count(*) FROM ct WHERE ct.g = o.g), (SELECT sum(a) FROM ct WHERE ct.g = o.g)
	FROM (VALUES (0), (1), (2), (5)) o(g) ORDER BY 1;
EXPLAIN (COSTS OFF) SELECT o.g, (SELECT count(*) FROM ct WHERE ct.g = o.g)
	FROM (VALUES (0), (1)) o(g);

-- what is not pushed keeps PostgreSQL's plan (the first one is pushed)
TRUNCATE ct;
SET quickstep.column_delta_rows = 0;
INSERT INTO ct (g, a, f, t) SELECT i % 5, i, i, 't' || i % 7 FROM generate_series(1, 20000) i;
RESET quickstep.column_delta_rows;
ANALYZE ct;
EXPLAIN (COSTS OFF) SELECT count(*), sum(a), max(f) FROM ct;
SELECT q, pushed(q) FROM (VALUES
	('SELECT count(DISTINCT a) FROM ct'),
	('SELECT sum(a ORDER BY a) FROM ct'),
	('SELECT sum(a) FILTER (WHERE g = 1) FROM ct'),
	('SELECT string_agg(t, '','') FROM ct'),
	('SELECT g, count(*) FROM ct GROUP BY GROUPING SETS ((g), ())'),
	('SELECT g, count(*) FROM ct GROUP BY ROLLUP (g)'),
	('SELECT count(*) FROM ct WHERE a > random()'),
	('SELECT count(*) FROM ct WHERE a + 1 > 5'),
	('SELECT count(*) FROM ct WHERE a > 5 OR g = 1'),
	('SELECT avg(f) FROM ct'),
	('SELECT sum(a::int8) FROM ct'),
	('SELECT sum(a + 1) FROM ct'),
	('SELECT f, count(*) FROM ct GROUP BY f'),
	('SELECT t COLLATE "C", count(*) FROM ct GROUP BY 1'),
	('SELECT g + 1, count(*) FROM ct GROUP BY g + 1'),
	('SELECT count(*) FROM ct c1, ct c2 WHERE c1.a = c2.a AND c1.a < 3'),
	('SELECT count(*), max(xmin::text) FROM ct')) v(q);
SET quickstep.enable_agg_pushdown = off;
SELECT pushed('SELECT count(*) FROM ct');
RESET quickstep.enable_agg_pushdown;
SET quickstep.enable_pushdown = off;
SELECT pushed('SELECT count(*) FROM ct');
RESET quickstep.enable_pushdown;

-- parallel: a range on the sort key inside one large block, whose rows the
-- participants share (src/scan/parrange.c); a count(*) of the range alone
-- is answered from the block's header, whole
CREATE TABLE ctb (id int, g int, a int8) USING quickstep_column
	WITH (quickstep.rows_per_block = 100000, quickstep.sort_key = 'id');
INSERT INTO ctb SELECT i, i % 5, (i * 7919) % 100003 FROM generate_series(1, 200000) i;
CREATE TABLE htb AS SELECT * FROM ctb;
DELETE FROM ctb WHERE id % 1000 = 17;
DELETE FROM htb WHERE id % 1000 = 17;
ANALYZE ctb, htb;
SELECT q, chk(q, true) FROM (VALUES
	('SELECT g, count(*), sum(a), min(a), max(a) FROM %1$sb WHERE id BETWEEN 20000 AND 90000 GROUP BY g'),
	('SELECT count(*), sum(a), avg(a) FROM %1$sb WHERE id BETWEEN 5000 AND 95000'),
	('SELECT count(*) FROM %1$sb WHERE id BETWEEN 5000 AND 95000'),
	('SELECT count(a), max(a) FROM %1$sb WHERE id >= 1000 AND a > 50000')
) v(q);
DROP TABLE ctb, htb;

DROP SCHEMA column_agg CASCADE;
