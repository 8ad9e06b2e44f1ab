-- Scrollable cursors over QuickstepScan (issue 13): FETCH BACKWARD,
-- ABSOLUTE, RELATIVE, LAST, MOVE, a rewind (FETCH ABSOLUTE after the end
-- rescans the node) and WITH HOLD, on every layout, against heap.  The row
-- layouts scan backward in the node (pages and records in reverse); column
-- tables do not advertise backward scans, so the planner puts a Material
-- node on top of theirs.  A scan's order is its table's physical order,
-- which differs between layouts (a column table returns its delta first):
-- walk() checks that every movement of the cursor returns the row that the
-- forward pass saw at that position, and reports the rows as a count and
-- an order-free hash, which must be heap's.
CREATE SCHEMA scan_backward;
SET search_path = scan_backward, public;
SET quickstep.enable_agg_pushdown = off;
-- the pushdown scan, not a sequential scan, for every layout: operators
-- made dear, so that the storage filter's half price wins even for quals
-- that keep every row (plan() below says which plan each cursor gets)
SET cpu_operator_cost = 1;
SET max_parallel_workers_per_gather = 0;

-- the plan of a scrollable cursor: QuickstepScan, under a Material or not
CREATE FUNCTION plan(q text) RETURNS text LANGUAGE plpgsql AS $f$
DECLARE
	line		text;
	res			text := '';
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) DECLARE c SCROLL CURSOR FOR ' || q LOOP
		IF line LIKE '%Materialize%' THEN
			res := res || 'Materialize, ';
		ELSIF line LIKE '%Custom Scan (QuickstepScan)%' THEN
			res := res || 'QuickstepScan, ';
		ELSIF line LIKE '%Scan%' THEN
			res := res || 'OTHER SCAN, ';
		END IF;
	END LOOP;
	RETURN rtrim(res, ', ');
END
$f$;

CREATE FUNCTION walk(cur refcursor) RETURNS text LANGUAGE plpgsql AS $f$
DECLARE
	f			text[] := '{}';
	r			record;
	n			int;
	k			int;
	bad			text := '';
	hash		bigint := 0;
BEGIN
	MOVE BACKWARD ALL FROM cur;
	LOOP
		FETCH NEXT FROM cur INTO r;
		EXIT WHEN NOT FOUND;
		f := f || (r.id || ':' || r.v);
		hash := hash + hashtext(r.id || ':' || r.v);
	END LOOP;
	n := cardinality(f);
	-- past the end: FETCH PRIOR walks every row back in reverse
	FOR i IN REVERSE n .. 1 LOOP
		FETCH PRIOR FROM cur INTO r;
		IF NOT FOUND OR r.id || ':' || r.v <> f[i] THEN
			bad := bad || ' prior@' || i;
			EXIT;
		END IF;
	END LOOP;
	FETCH PRIOR FROM cur INTO r;
	IF FOUND THEN
		bad := bad || ' before-first';
	END IF;
	-- absolute positions, from either end; each one far from the last
	-- rewinds the executor (a rescan of the scan node)
	FOREACH k IN ARRAY ARRAY[1, n, n / 2, 2, n - 1, -1, -n, n / 3] LOOP
		FETCH ABSOLUTE k FROM cur INTO r;
		IF NOT FOUND OR r.id || ':' || r.v <> f[CASE WHEN k < 0 THEN n + 1 + k ELSE k END] THEN
			bad := bad || ' absolute ' || k;
		END IF;
	END LOOP;
	FETCH ABSOLUTE n + 1 FROM cur INTO r;
	IF FOUND THEN
		bad := bad || ' past-end';
	END IF;
	FETCH ABSOLUTE 0 FROM cur INTO r;
	IF FOUND THEN
		bad := bad || ' absolute 0';
	END IF;
	-- relative steps and MOVEs in both directions
	FETCH ABSOLUTE n / 2 FROM cur INTO r;
	FETCH RELATIVE -3 FROM cur INTO r;
	IF NOT FOUND OR r.id || ':' || r.v <> f[n / 2 - 3] THEN
		bad := bad || ' relative -3';
	END IF;
	FETCH RELATIVE 5 FROM cur INTO r;
	IF NOT FOUND OR r.id || ':' || r.v <> f[n / 2 + 2] THEN
		bad := bad || ' relative 5';
	END IF;
	MOVE BACKWARD 4 FROM cur;
	FETCH NEXT FROM cur INTO r;
	IF NOT FOUND OR r.id || ':' || r.v <> f[n / 2 - 1] THEN
		bad := bad || ' move backward';
	END IF;
	MOVE LAST FROM cur;
	FETCH BACKWARD FROM cur INTO r;
	IF NOT FOUND OR r.id || ':' || r.v <> f[n - 1] THEN
		bad := bad || ' last, backward';
	END IF;
	MOVE FIRST FROM cur;
	MOVE FORWARD 9 FROM cur;
	FETCH FORWARD FROM cur INTO r;
	IF NOT FOUND OR r.id || ':' || r.v <> f[11] THEN
		bad := bad || ' first, forward';
	END IF;
	RETURN n || ' rows, hash ' || hash ||
		CASE WHEN bad = '' THEN ', consistent' ELSE ', WRONG:' || bad END;
END
$f$;

-- the same rows in each layout: 6000 rows, some deleted, some updated (new
-- versions elsewhere), and a column table with main blocks and a delta
CREATE TABLE t_heap (id int, v int, pad text) USING heap;
CREATE TABLE t_nsm (LIKE t_heap) USING quickstep_nsm;
CREATE TABLE t_pax (LIKE t_heap) USING quickstep_pax;
CREATE TABLE t_hpl (LIKE t_heap) USING quickstep_hpl;
CREATE TABLE t_col (LIKE t_heap) USING quickstep_column
	WITH (quickstep.rows_per_block = 1000, quickstep.sort_key = 'id');
SET quickstep.column_delta_rows = 700;
DO $$
DECLARE
	t text;
BEGIN
	FOREACH t IN ARRAY ARRAY['t_heap', 't_nsm', 't_pax', 't_hpl', 't_col'] LOOP
		EXECUTE format($q$INSERT INTO %I SELECT i, (i * 7919) %% 1000, repeat('x', i %% 50)
						  FROM generate_series(1, 6000) i$q$, t);
		EXECUTE format('DELETE FROM %I WHERE id %% 11 = 0', t);
		EXECUTE format('UPDATE %I SET v = v + 1, pad = ''u'' WHERE id %% 13 = 0', t);
	END LOOP;
END $$;
RESET quickstep.column_delta_rows;
SELECT count(*) > 0 AS has_blocks FROM quickstep.blocks('t_col');

-- plans: the row layouts scan backward themselves, column tables under a
-- Material node
EXPLAIN (COSTS OFF) DECLARE c SCROLL CURSOR FOR SELECT id, v FROM t_nsm WHERE v < 100;
EXPLAIN (COSTS OFF) DECLARE c SCROLL CURSOR FOR SELECT id, v FROM t_pax WHERE v < 100;
EXPLAIN (COSTS OFF) DECLARE c SCROLL CURSOR FOR SELECT id, v FROM t_hpl WHERE v < 100;
EXPLAIN (COSTS OFF) DECLARE c SCROLL CURSOR FOR SELECT id, v FROM t_col WHERE v < 100;
-- a cursor that only goes forward needs no Material
EXPLAIN (COSTS OFF) DECLARE c NO SCROLL CURSOR FOR SELECT id, v FROM t_col WHERE v < 100;

SELECT t, q, plan(format(q, t)) FROM
	unnest(ARRAY['t_nsm', 't_pax', 't_hpl', 't_col']) t,
	unnest(ARRAY['SELECT id, v FROM %I WHERE v < 100',
				 'SELECT id, v FROM %I WHERE id BETWEEN 2990 AND 3020',
				 'SELECT id, v FROM %I WHERE v >= 0']) q;

-- every layout's cursor, several quals (a page or block with no row, all
-- rows, none)
BEGIN;
DECLARE h_heap SCROLL CURSOR FOR SELECT id, v FROM t_heap WHERE v < 100;
DECLARE h_nsm SCROLL CURSOR FOR SELECT id, v FROM t_nsm WHERE v < 100;
DECLARE h_pax SCROLL CURSOR FOR SELECT id, v FROM t_pax WHERE v < 100;
DECLARE h_hpl SCROLL CURSOR FOR SELECT id, v FROM t_hpl WHERE v < 100;
DECLARE h_col SCROLL CURSOR FOR SELECT id, v FROM t_col WHERE v < 100;
SELECT c, walk(c::refcursor) FROM unnest(ARRAY['h_heap', 'h_nsm', 'h_pax', 'h_hpl', 'h_col']) c;
COMMIT;
BEGIN;
DECLARE h_heap SCROLL CURSOR FOR SELECT id, v FROM t_heap WHERE id BETWEEN 2990 AND 3020;
DECLARE h_nsm SCROLL CURSOR FOR SELECT id, v FROM t_nsm WHERE id BETWEEN 2990 AND 3020;
DECLARE h_pax SCROLL CURSOR FOR SELECT id, v FROM t_pax WHERE id BETWEEN 2990 AND 3020;
DECLARE h_hpl SCROLL CURSOR FOR SELECT id, v FROM t_hpl WHERE id BETWEEN 2990 AND 3020;
DECLARE h_col SCROLL CURSOR FOR SELECT id, v FROM t_col WHERE id BETWEEN 2990 AND 3020;
SELECT c, walk(c::refcursor) FROM unnest(ARRAY['h_heap', 'h_nsm', 'h_pax', 'h_hpl', 'h_col']) c;
COMMIT;
BEGIN;
DECLARE h_heap SCROLL CURSOR FOR SELECT id, v FROM t_heap WHERE v >= 0;
DECLARE h_nsm SCROLL CURSOR FOR SELECT id, v FROM t_nsm WHERE v >= 0;
DECLARE h_pax SCROLL CURSOR FOR SELECT id, v FROM t_pax WHERE v >= 0;
DECLARE h_hpl SCROLL CURSOR FOR SELECT id, v FROM t_hpl WHERE v >= 0;
DECLARE h_col SCROLL CURSOR FOR SELECT id, v FROM t_col WHERE v >= 0;
SELECT c, walk(c::refcursor) FROM unnest(ARRAY['h_heap', 'h_nsm', 'h_pax', 'h_hpl', 'h_col']) c;
-- no row at all: every movement finds nothing
DECLARE e_nsm SCROLL CURSOR FOR SELECT id, v FROM t_nsm WHERE v > 5000;
DECLARE e_col SCROLL CURSOR FOR SELECT id, v FROM t_col WHERE v > 5000;
FETCH LAST FROM e_nsm;
FETCH PRIOR FROM e_nsm;
FETCH ABSOLUTE 1 FROM e_nsm;
FETCH LAST FROM e_col;
FETCH PRIOR FROM e_col;
FETCH ABSOLUTE 1 FROM e_col;
COMMIT;

-- WITH HOLD: the cursor's rows are kept at commit (the portal rewinds the
-- executor and runs it to the end), then read in every direction
BEGIN;
DECLARE w_heap SCROLL CURSOR WITH HOLD FOR SELECT id, v FROM t_heap WHERE v < 100;
DECLARE w_nsm SCROLL CURSOR WITH HOLD FOR SELECT id, v FROM t_nsm WHERE v < 100;
DECLARE w_pax SCROLL CURSOR WITH HOLD FOR SELECT id, v FROM t_pax WHERE v < 100;
DECLARE w_hpl SCROLL CURSOR WITH HOLD FOR SELECT id, v FROM t_hpl WHERE v < 100;
DECLARE w_col SCROLL CURSOR WITH HOLD FOR SELECT id, v FROM t_col WHERE v < 100;
MOVE FORWARD 7 FROM w_heap;
MOVE FORWARD 7 FROM w_nsm;
MOVE FORWARD 7 FROM w_pax;
MOVE FORWARD 7 FROM w_hpl;
MOVE FORWARD 7 FROM w_col;
MOVE BACKWARD 3 FROM w_nsm;
MOVE BACKWARD 3 FROM w_col;
COMMIT;
-- rows changed after the commit are not seen by the held cursors
DELETE FROM t_nsm WHERE v < 50;
DELETE FROM t_col WHERE v < 50;
SELECT c, walk(c::refcursor) FROM unnest(ARRAY['w_heap', 'w_nsm', 'w_pax', 'w_hpl', 'w_col']) c;
CLOSE w_heap;
CLOSE w_nsm;
CLOSE w_pax;
CLOSE w_hpl;
CLOSE w_col;

-- a non-scrollable WITH HOLD cursor reads on after the commit
BEGIN;
DECLARE n_nsm NO SCROLL CURSOR WITH HOLD FOR SELECT id, v FROM t_nsm WHERE v BETWEEN 50 AND 52 ORDER BY id;
FETCH 2 FROM n_nsm;
COMMIT;
FETCH 2 FROM n_nsm;
CLOSE n_nsm;

RESET search_path;
SET client_min_messages = warning;
DROP SCHEMA scan_backward CASCADE;
RESET client_min_messages;
