-- Aggregate pushdown of sum/avg(numeric) (issue 13: numeric whose values
-- fit scaled integers; TPC-H Q1 and Q6): over numeric(p,s) columns and +,
-- -, * of them and numeric constants, grouped also by char(n) keys.  Every
-- query runs on the column table with pushdown, on the column table without
-- it and on a heap table of the same rows: the answers (display scales
-- included) must be the same.
CREATE SCHEMA column_agg_numeric;
SET search_path = column_agg_numeric, public;

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
	('SELECT sum(p), avg(p), count(p), count(*) FROM %1$I'),
	('SELECT g, sum(p), avg(p), sum(d), avg(x) FROM %1$I GROUP BY g'),
	-- TPC-H Q1's aggregates, grouped by two char(1) keys
	('SELECT k, f, sum(p), sum(p * (1 - d)), sum(p * (1 - d) * (1 + x)), avg(p), avg(d), count(*) FROM %1$I GROUP BY k, f'),
	-- TPC-H Q6's
	('SELECT sum(p * d) FROM %1$I WHERE d BETWEEN 0.05 AND 0.07 AND x < 0.05'),
	-- int128 overflow: the sums go through numeric_add
	('SELECT sum(w), avg(w), count(w) FROM %1$I'),
	('SELECT g, sum(w * 3), sum(w - w), avg(w + 1) FROM %1$I GROUP BY g'),
	-- scales 4, 8, 12 and constants of other scales
	('SELECT sum(z), avg(z + p), sum(z * z), sum(z * z * z) FROM %1$I'),
	('SELECT g, sum(p - 2.505), avg(1.5 * p), sum(0.001 + z - p * 2) FROM %1$I WHERE g < 3 GROUP BY g'),
	('SELECT c3, g, sum(p), count(*) FROM %1$I GROUP BY c3, g'),
	-- infinities: numeric(p,s) cannot hold one, constants can (the rows
	-- through numeric_add, _sub and _mul: Inf * 0 is NaN)
	('SELECT g, sum(p + ''Infinity''), avg(p * ''-Infinity''), sum(d * ''Infinity''), sum(z - ''Infinity'' + p) FROM %1$I GROUP BY g'),
	('SELECT sum(x * ''NaN''), avg(x - ''-Infinity''), count(*) FROM %1$I'),
	-- groups whose values are all NULL
	('SELECT g, sum(p), avg(p * d), count(*) FROM %1$I WHERE p IS NULL GROUP BY g'),
	('SELECT sum(p), avg(p) FROM %1$I WHERE p IS NULL'),
	('SELECT f, sum(p), avg(d) FROM %1$I WHERE p < 0 GROUP BY f'),
	-- one output column reading five columns (the scan's column slots)
	('SELECT sum(p * d + x * z - w) FROM %1$I');

SET quickstep.column_delta_rows = 0;
CREATE TABLE ct (g int4, k char(1), f char(1), c3 char(3), p numeric(15,2),
				 d numeric(15,2), x numeric(15,2), w numeric(38,0), z numeric(10,4),
				 u numeric)
	USING quickstep_column WITH (quickstep.rows_per_block = 3000);
CREATE TABLE ht (LIKE ct);
INSERT INTO ct
	SELECT i % 5, chr(65 + i % 3), CASE WHEN i % 7 = 0 THEN 'O' ELSE 'F' END,
		   CASE WHEN i % 19 = 0 THEN NULL ELSE 'a' || (i % 4) END,
		   CASE WHEN i % 13 = 0 THEN NULL ELSE ((i * 7919) % 1000000) / 100.0 - 1000 END,
		   (i % 11) / 100.0, (i % 9) / 100.0,
		   (i % 97) * 1000000000000000000000000000000000000::numeric + i,
		   ((i * 31) % 100000) / 10000.0 - 5, i
	FROM generate_series(1, 20000) i;
INSERT INTO ht SELECT * FROM ct;
RESET quickstep.column_delta_rows;
ANALYZE ct, ht;
-- the numeric(15,2) columns of few values are dictionaries (converted once
-- per block), the others not
SELECT column_name, encoding FROM quickstep.blocks('ct')
 WHERE block_id = (SELECT min(block_id) FROM quickstep.blocks('ct'))
   AND column_name IN ('p', 'd', 'x', 'w', 'z')
 ORDER BY column_name;

-- the plan shapes: TPC-H Q1 and Q6
EXPLAIN (COSTS OFF)
SELECT k, f, sum(p), sum(p * (1 - d)), sum(p * (1 - d) * (1 + x)), avg(p), avg(d), count(*)
	FROM ct WHERE g < 4 GROUP BY k, f ORDER BY k, f;
EXPLAIN (COSTS OFF) SELECT sum(p * d) FROM ct WHERE d BETWEEN 0.05 AND 0.07 AND x < 0.05;
-- display scales: 2 for numeric(15,2), 4 for a product, 6 for Q1's charge
SELECT k, f, sum(p), sum(p * (1 - d)), sum(p * (1 - d) * (1 + x)), avg(p), avg(d), count(*)
	FROM ct WHERE g < 4 GROUP BY k, f ORDER BY k, f;
SELECT k, f, sum(p), sum(p * (1 - d)), sum(p * (1 - d) * (1 + x)), avg(p), avg(d), count(*)
	FROM ht WHERE g < 4 GROUP BY k, f ORDER BY k, f;

SELECT id, chk(q) FROM queries ORDER BY id;
SELECT id, chk(q, true) FROM queries ORDER BY id;
-- the parallel plan
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF) SELECT k, f, sum(p * (1 - d)), avg(x) FROM ct GROUP BY k, f;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;

-- deleted and updated main rows, rows in the delta: NaN, negatives, zeros
-- of scale 2, the limits of numeric(15,2), (38,0) and (10,4), NULLs (a
-- numeric(p,s) column holds no infinity: "numeric field overflow")
DELETE FROM ct WHERE g = 1 AND p < 0;
DELETE FROM ht WHERE g = 1 AND p < 0;
UPDATE ct SET p = -p, d = d + 0.01 WHERE g = 2 AND p > 9000;
UPDATE ht SET p = -p, d = d + 0.01 WHERE g = 2 AND p > 9000;
CREATE TABLE extra (LIKE ct);
INSERT INTO extra VALUES
	(0, 'A', 'F', 'a1', 'NaN', 0.01, 0.02, 'NaN', 'NaN', 1),
	(1, 'B', 'F', 'a2', 'NaN', 0.5, 0, 5, 'NaN', 1),
	(1, 'B', 'O', 'a2', -0.01, 0.5, 0, 'NaN', 1, 1),
	(2, 'C', 'O', 'a3', '9999999999999.99', 0.99, 0.99, 99999999999999999999999999999999999999, 999999.9999, 1),
	(2, 'C', 'O', 'a3', '9999999999999.99', 0.99, 0.99, 99999999999999999999999999999999999999, 999999.9999, 1),
	(3, 'A', 'F', 'a0', '-9999999999999.99', -0.5, 0, -99999999999999999999999999999999999999, -999999.9999, 1),
	(3, 'A', 'O', 'a1', 0, 0, 0, 0, 0, 0),
	(4, 'C', 'F', NULL, -0.01, 0.05, 0.04, -1, -0.0001, 1),
	(5, 'Z', 'F', 'z', NULL, NULL, NULL, NULL, NULL, NULL),
	(6, 'Y', 'F', 'y', 0.00, 'NaN', 0, 0, 0, 0),
	(7, 'X', 'F', 'x', 9999999999999.99, -0.99, -0.99, 1, 1, 1),
	(7, 'X', 'F', 'x', 9999999999999.99, 0.99, 0.99, 1, 1, 1);
INSERT INTO ct (g, p) VALUES (8, 'Infinity');
INSERT INTO ct SELECT * FROM extra;
INSERT INTO ht SELECT * FROM extra;
SELECT id, chk(q) FROM queries ORDER BY id;
SELECT id, chk(q, true) FROM queries ORDER BY id;
-- the same rows after a merge (NaN and wide values in blocks)
SELECT quickstep.merge('ct') IS NOT NULL AS merged;
SELECT id, chk(q) FROM queries ORDER BY id;
SELECT id, chk(q, true) FROM queries ORDER BY id;
-- display scales of the rows at the limits (pushed, as EXPLAIN shows)
EXPLAIN (COSTS OFF)
SELECT g, sum(p), sum(p * (1 - d)), sum(p * (1 - d) * (1 + x)), sum(w), avg(z * z)
	FROM ct WHERE g >= 2 GROUP BY g ORDER BY g;
SELECT g, sum(p), sum(p * (1 - d)), sum(p * (1 - d) * (1 + x)), sum(w), avg(z * z)
	FROM ct WHERE g >= 2 GROUP BY g ORDER BY g;
SELECT g, sum(p), sum(p * (1 - d)), sum(p * (1 - d) * (1 + x)), sum(w), avg(z * z)
	FROM ht WHERE g >= 2 GROUP BY g ORDER BY g;

-- a numeric(p,s) column added after the blocks were written: their rows
-- have its missing value (the delta's rows their own)
ALTER TABLE ct ADD COLUMN m numeric(12,3) DEFAULT 2.125;
ALTER TABLE ht ADD COLUMN m numeric(12,3) DEFAULT 2.125;
INSERT INTO ct (g, p, m) VALUES (1, 1.5, -0.001), (2, 2.5, NULL);
INSERT INTO ht (g, p, m) VALUES (1, 1.5, -0.001), (2, 2.5, NULL);
SELECT chk('SELECT g, sum(m), avg(m * p), sum(m - d) FROM %1$I GROUP BY g');
SELECT chk('SELECT sum(m), avg(m * p), sum(m - d) FROM %1$I', true);
ALTER TABLE ct DROP COLUMN m;
ALTER TABLE ht DROP COLUMN m;

-- every row deleted, then an empty table
DELETE FROM ct;
DELETE FROM ht;
SELECT id, chk(q) FROM queries ORDER BY id;
TRUNCATE ct, ht;
SELECT id, chk(q) FROM queries WHERE id IN (1, 3, 5, 11) ORDER BY id;

-- char(n) keys of two lengths holding the same characters: each group
-- prints its own column's value ('x  ' for c3, not c1's 'x')
SET quickstep.column_delta_rows = 0;
CREATE TABLE cb (c1 char(1), c3 char(3), v numeric(10,2))
	USING quickstep_column WITH (quickstep.rows_per_block = 3000);
CREATE TABLE hb (LIKE cb);
INSERT INTO cb SELECT CASE WHEN i % 2 = 0 THEN 'x' ELSE 'y' END,
		   CASE WHEN i % 3 = 0 THEN 'x' ELSE 'y' END, i / 100.0
	FROM generate_series(1, 5000) i;
RESET quickstep.column_delta_rows;
INSERT INTO hb SELECT * FROM cb;
ANALYZE cb, hb;
EXPLAIN (COSTS OFF) SELECT c1, c3, sum(v) FROM cb GROUP BY c1, c3;
SELECT c1, c3, octet_length(c1), octet_length(c3), format('%s|%s', c1, c3), sum(v)
	FROM cb GROUP BY c1, c3 ORDER BY 1, 2;
SELECT c1, c3, octet_length(c1), octet_length(c3), format('%s|%s', c1, c3), sum(v)
	FROM hb GROUP BY c1, c3 ORDER BY 1, 2;
SELECT c3, c1, octet_length(c1), octet_length(c3), sum(v)
	FROM cb GROUP BY c3, c1 ORDER BY 1, 2;
SELECT c3, c1, octet_length(c1), octet_length(c3), sum(v)
	FROM hb GROUP BY c3, c1 ORDER BY 1, 2;

-- what is not pushed keeps PostgreSQL's plan (the first one is pushed)
SET quickstep.column_delta_rows = 0;
INSERT INTO ct (g, k, c3, p, d, u) SELECT i % 5, 'A', 'b', i, 0.5, i FROM generate_series(1, 20000) i;
RESET quickstep.column_delta_rows;
ALTER TABLE ct ADD COLUMN bp bpchar, ADD COLUMN ns numeric(5,-2);
ANALYZE ct;
EXPLAIN (COSTS OFF) SELECT k, sum(p * d) FROM ct GROUP BY k;
SELECT q, pushed(q) FROM (VALUES
	('SELECT sum(u) FROM ct'),
	('SELECT avg(u * p) FROM ct'),
	('SELECT sum(ns) FROM ct'),
	('SELECT sum(p / d) FROM ct'),
	('SELECT sum(abs(p)) FROM ct'),
	('SELECT sum(-p) FROM ct'),
	('SELECT sum(p::numeric(10,1)) FROM ct'),
	('SELECT sum(p + g) FROM ct'),
	('SELECT sum(p * NULL::numeric) FROM ct'),
	('SELECT min(p), max(p) FROM ct'),
	('SELECT sum(p) FILTER (WHERE g = 1) FROM ct'),
	('SELECT bp, count(*) FROM ct GROUP BY bp'),
	('SELECT c3 COLLATE "C", count(*) FROM ct GROUP BY 1'),
	('SELECT p, count(*) FROM ct GROUP BY p')) v(q);

DROP SCHEMA column_agg_numeric CASCADE;
