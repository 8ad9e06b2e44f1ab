-- Pushed quals that call a function run only on main rows the scan may see
-- (issue 13): a column table's QuickstepScan (rows and aggregate pushdown,
-- serial and parallel) and its AM's sequential scan never call a
-- user-defined operator on a deleted main row or the old version of an
-- updated row, as heap's scan never does.  Native
-- code and integer ranges (they call nothing) may still run first.
CREATE SCHEMA column_pushvis;
SET search_path = column_pushvis, public;
SET quickstep.column_delta_rows = 0;	-- every row into a main block

-- boom raises on an invisible row's id (negative); >=== is pushed as a
-- per-row qual (QS_CP_ROWS): no btree opfamily, no native comparison
CREATE FUNCTION boom(a int, b int) RETURNS bool LANGUAGE plpgsql
	STRICT IMMUTABLE PARALLEL SAFE AS
$$ BEGIN IF a < 0 THEN RAISE 'boom saw %', a; END IF; RETURN a >= b; END $$;
CREATE OPERATOR >=== (LEFTARG = int, RIGHTARG = int, FUNCTION = boom);

CREATE TABLE cx (id int, v int) USING quickstep_column;
CREATE TABLE hx (id int, v int) USING heap;
INSERT INTO cx SELECT g, g FROM generate_series(1, 1000) g;
INSERT INTO hx SELECT g, g FROM generate_series(1, 1000) g;
-- a deleted main row
INSERT INTO cx VALUES (-1, -1);
DELETE FROM cx WHERE id = -1;
INSERT INTO hx VALUES (-1, -1);
DELETE FROM hx WHERE id = -1;
-- the old version of an updated main row
INSERT INTO cx VALUES (-3, -3);
UPDATE cx SET id = 2000 WHERE id = -3;
INSERT INTO hx VALUES (-3, -3);
UPDATE hx SET id = 2000 WHERE id = -3;
-- an aborted load (its block is not in the directory a later scan reads,
-- so no scan meets these rows today; kept in case that changes)
BEGIN;
INSERT INTO cx SELECT -2, 5000 + g FROM generate_series(1, 100) g;
ROLLBACK;
BEGIN;
INSERT INTO hx SELECT -2, 5000 + g FROM generate_series(1, 100) g;
ROLLBACK;

-- run(query): its rows through RETURN QUERY, which may run parallel
CREATE FUNCTION run(q text) RETURNS SETOF text LANGUAGE plpgsql AS $f$
BEGIN
	RETURN QUERY EXECUTE q;
END
$f$;

-- chk(query with %1$I for the table): the column table's plan ('scan' for
-- a QuickstepScan, 'agg' when it computes partial aggregates, 'parallel'
-- under a Gather), then its rows, and whether they equal heap's
CREATE FUNCTION chk(q text) RETURNS text LANGUAGE plpgsql AS $f$
DECLARE
	line		text;
	shape		text := '';
	agg			text := 'SELECT coalesce(string_agg(x::text, '' '' ORDER BY x::text), ''(none)'') FROM (%s) x';
	r_col		text;
	r_heap		text;
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || format(q, 'cx') LOOP
		IF line LIKE '%Custom Scan (QuickstepScan)%' AND shape NOT LIKE '%scan%' THEN
			shape := shape || ' scan';
		END IF;
		IF line LIKE '%Partial Aggregates Pushed%' THEN
			shape := shape || ' agg';
		END IF;
		IF line LIKE '%Gather%' AND shape NOT LIKE '%parallel%' THEN
			shape := shape || ' parallel';
		END IF;
	END LOOP;
	SELECT x INTO r_col FROM run(format(agg, format(q, 'cx'))) x;
	SELECT x INTO r_heap FROM run(format(agg, format(q, 'hx'))) x;
	RETURN coalesce(nullif(ltrim(shape), ''), 'plain') || ': ' || r_col ||
		CASE WHEN r_col IS DISTINCT FROM r_heap THEN ' DIFFERENT from heap: ' || r_heap
			 ELSE ' (= heap)' END;
END
$f$;

-- parallel plans only where a test below asks for them
SET max_parallel_workers_per_gather = 0;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET parallel_leader_participation = off;

-- QuickstepScan's rows (the aggregate above it PostgreSQL's)
SET quickstep.enable_agg_pushdown = off;
SELECT chk('SELECT count(*), sum(v) FROM (SELECT id, v FROM %1$I WHERE id >=== 0 OFFSET 0) s');
-- after a native qual, and before one
SELECT chk('SELECT count(*), sum(v) FROM (SELECT id, v FROM %1$I WHERE v < 500 AND id >=== 0 OFFSET 0) s');
SELECT chk('SELECT count(*), sum(v) FROM (SELECT id, v FROM %1$I WHERE id >=== 0 AND v >= 2 OFFSET 0) s');
-- a leakproof qual (int4eq of IN) may see the invisible rows, boom not
SELECT chk('SELECT count(*), sum(v) FROM (SELECT id, v FROM %1$I WHERE v IN (-1, -3, 5) AND id >=== -10 OFFSET 0) s');
-- each invisible row alone past the native qual: deleted, updated, aborted
SELECT chk('SELECT count(*), sum(v) FROM (SELECT id, v FROM %1$I WHERE v = -1 AND id >=== 0 OFFSET 0) s');
SELECT chk('SELECT count(*), sum(v) FROM (SELECT id, v FROM %1$I WHERE v = -3 AND id >=== 0 OFFSET 0) s');
SELECT chk('SELECT count(*), sum(v) FROM (SELECT id, v FROM %1$I WHERE v > 5000 AND id >=== 0 OFFSET 0) s');
SET max_parallel_workers_per_gather = 2;
SELECT chk('SELECT count(*), sum(v) FROM (SELECT id, v FROM %1$I WHERE id >=== 0 OFFSET 0) s');
SET max_parallel_workers_per_gather = 0;
-- a row this transaction deleted
BEGIN;
DELETE FROM cx WHERE id = 7;
DELETE FROM hx WHERE id = 7;
UPDATE cx SET id = -7 WHERE id = 8;
UPDATE hx SET id = -7 WHERE id = 8;
SELECT chk('SELECT count(*), sum(v) FROM (SELECT id, v FROM %1$I WHERE id >=== 0 AND id <> -7 OFFSET 0) s');
ROLLBACK;

-- the aggregate pushdown
RESET quickstep.enable_agg_pushdown;
SELECT chk('SELECT count(*), sum(v) FROM %1$I WHERE id >=== 0');
SELECT chk('SELECT count(*), min(v), max(id) FROM %1$I WHERE v > 10 AND id >=== 5');
SELECT chk('SELECT count(*), sum(v) FROM %1$I WHERE v > 5000 AND id >=== 0');
SET max_parallel_workers_per_gather = 2;
SELECT chk('SELECT count(*), sum(v) FROM %1$I WHERE id >=== 0');
SET max_parallel_workers_per_gather = 0;

-- the column AM's own sequential scan
SET quickstep.enable_pushdown = off;
SELECT chk('SELECT count(*), sum(v) FROM %1$I WHERE id >=== 0');
RESET quickstep.enable_pushdown;

SET client_min_messages = warning;
DROP SCHEMA column_pushvis CASCADE;
