--
-- QuickstepScan: predicates and projections pushed into quickstep storage.
-- Every query runs three ways -- on heap, on quickstep_nsm through
-- QuickstepScan, and on quickstep_nsm with pushdown off -- and must give the
-- same rows.
--
CREATE TABLE sc_heap (id int, a int, b int8, s smallint, c text, v varchar(20),
                      d date, t timestamptz, f float8, n numeric);
SELECT setseed(0.5);
INSERT INTO sc_heap
SELECT g,
       CASE WHEN g % 97 = 0 THEN NULL ELSE (random() * 10000)::int END,
       (random() * 1e10)::int8,
       (g % 300)::smallint,
       CASE WHEN g % 89 = 0 THEN NULL ELSE md5(g::text) END,
       'v' || (g % 50),
       date '2020-01-01' + (g % 1000),
       timestamptz '2020-01-01 00:00+00' + g * interval '17 minutes',
       CASE WHEN g % 101 = 0 THEN 'NaN'::float8 ELSE random() * 100 END,
       round((random() * 1000)::numeric, 2)
  FROM generate_series(1, 30000) g;
CREATE TABLE sc_nsm (LIKE sc_heap) USING quickstep_nsm;
INSERT INTO sc_nsm SELECT * FROM sc_heap;
ANALYZE sc_heap, sc_nsm;

-- Compare one WHERE clause on the three scans: row count and an
-- order-independent checksum of whole rows.
CREATE FUNCTION sc_check(pred text, OUT rows bigint, OUT same boolean, OUT pushed boolean)
LANGUAGE plpgsql AS $$
DECLARE
	h text; p text; o text; plan text;
BEGIN
	EXECUTE format('SELECT count(*) || '':'' || coalesce(sum(hashtext(x::text)::numeric), 0) FROM sc_heap x WHERE %s', pred) INTO h;
	-- dear operators make the pushdown scan win wherever it is offered
	SET LOCAL quickstep.enable_pushdown = on;
	SET LOCAL cpu_operator_cost = 1;
	EXECUTE format('SELECT count(*) || '':'' || coalesce(sum(hashtext(x::text)::numeric), 0) FROM sc_nsm x WHERE %s', pred) INTO p;
	EXECUTE format('EXPLAIN (COSTS OFF) SELECT * FROM sc_nsm x WHERE %s', pred) INTO plan;
	pushed := plan LIKE '%QuickstepScan%';
	RESET cpu_operator_cost;
	SET LOCAL quickstep.enable_pushdown = off;
	EXECUTE format('SELECT count(*) || '':'' || coalesce(sum(hashtext(x::text)::numeric), 0) FROM sc_nsm x WHERE %s', pred) INTO o;
	SET LOCAL quickstep.enable_pushdown = on;
	rows := split_part(h, ':', 1)::bigint;
	same := (h = p AND h = o);
END
$$;

-- No index paths here: the pushdown scan competes with the plain scan only.
SET enable_indexscan = off;
SET enable_bitmapscan = off;
SET max_parallel_workers_per_gather = 0;

SELECT pred, (sc_check(pred)).*
  FROM unnest(ARRAY[
	'a = 42', 'a <> 42', 'a < 100', 'a <= 100', 'a > 9900', 'a >= 9900',
	'100 > a', 'a BETWEEN 1000 AND 1100', 'a NOT BETWEEN 10 AND 9990',
	'a IN (1, 2, 3, 500, 7777)', 'a NOT IN (1, 2, 3)', 'a = ANY (ARRAY[5, NULL, 6])',
	'a <> ALL (ARRAY[5, NULL])', 'a > ALL (ARRAY[]::int[])', 'a IS NULL', 'a IS NOT NULL',
	'b < 1000000000', 'b >= 5000000000::int8 AND a < 5000', 'a < 3000000000',
	's = 7', 's < 3::int8', 'id <= 10',
	'c < ''1''', 'c >= ''f'' COLLATE "C"', 'c IS NULL', 'v = ''v7''', 'v IN (''v1'', ''v2'')',
	'd = date ''2021-06-01''', 'd < ''2020-02-01''', 't > ''2020-06-01 12:00+00''',
	'f > 99', 'f = ''NaN''', 'f < 1 OR a < 5', 'n BETWEEN 10 AND 20.5',
	'a < 500 AND c > ''8'' AND f < 50', 'a < 500 AND abs(b) > 0', 'a + 1 < 100',
	'a < (SELECT 50)', 'a < 1 AND a > 1', 'c LIKE ''ab%''',
	'a < 100 AND a > ALL (ARRAY[]::int[])', 'a < 100 AND c IS NOT NULL',
	'a < 100 AND a <> ALL (ARRAY[1, 2])'
  ]) AS pred;

-- Plans: what is pushed, what stays a normal filter.
EXPLAIN (COSTS OFF) SELECT id FROM sc_nsm WHERE a < 100 AND c LIKE 'a%';
EXPLAIN (COSTS OFF, VERBOSE) SELECT id, c FROM sc_nsm WHERE a BETWEEN 5 AND 10;
EXPLAIN (COSTS OFF) SELECT * FROM sc_nsm WHERE a < 1 OR a > 9999;
-- EXPLAIN ANALYZE counts the rows the storage filter removed.
CREATE FUNCTION explain_lines(q text, pattern text) RETURNS SETOF text
LANGUAGE plpgsql AS $$
DECLARE
	l text;
BEGIN
	FOR l IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
		IF l ~ pattern THEN
			RETURN NEXT trim(l);
		END IF;
	END LOOP;
END
$$;
SELECT explain_lines($$SELECT count(*) FROM sc_nsm WHERE a < 100 AND d < '2020-03-01'$$,
                     'Storage');
-- The planner keeps the plain scan where the pushdown cannot win: nearly
-- every row passes.
EXPLAIN (COSTS OFF) SELECT * FROM sc_nsm WHERE a IS NOT NULL;
-- it is a sequential scan: enable_seqscan = off prefers an index
CREATE INDEX sc_nsm_a ON sc_nsm (a);
SET enable_indexscan = on;
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT id FROM sc_nsm WHERE a < 100;
RESET enable_seqscan;
SET enable_indexscan = off;
DROP INDEX sc_nsm_a;
-- heap tables are never offered the node
EXPLAIN (COSTS OFF) SELECT id FROM sc_heap WHERE a < 100;
-- and the GUC turns it off
SET quickstep.enable_pushdown = off;
EXPLAIN (COSTS OFF) SELECT id FROM sc_nsm WHERE a < 100;
RESET quickstep.enable_pushdown;

-- Parameters: a generic plan evaluates $1 at run time, and a rescan with
-- a new outer value re-evaluates it.
PREPARE q(int) AS SELECT count(*) FROM sc_nsm WHERE a < $1;
SET plan_cache_mode = force_generic_plan;
EXPLAIN (COSTS OFF) EXECUTE q(10);
EXECUTE q(10);
EXECUTE q(5000);
SELECT count(*) FROM sc_heap WHERE a < 5000;
RESET plan_cache_mode;
SELECT g, (SELECT count(*) FROM sc_nsm WHERE a < g * 1000) AS nsm,
          (SELECT count(*) FROM sc_heap WHERE a < g * 1000) AS heap
  FROM generate_series(1, 3) g;

-- Parallel: the same rows with workers sharing the pages.
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF) SELECT count(*), sum(a) FROM sc_nsm WHERE a < 5000;
SELECT count(*), sum(a) FROM sc_nsm WHERE a < 5000;
SELECT count(*), sum(a) FROM sc_heap WHERE a < 5000;
RESET max_parallel_workers_per_gather;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
SET max_parallel_workers_per_gather = 0;

-- Writes through the node: UPDATE, DELETE and row locks use the ctid it
-- hands out.
EXPLAIN (COSTS OFF) UPDATE sc_nsm SET n = n + 1 WHERE a < 50;
UPDATE sc_nsm SET n = n + 1 WHERE a < 50;
UPDATE sc_heap SET n = n + 1 WHERE a < 50;
DELETE FROM sc_nsm WHERE a BETWEEN 9000 AND 9100;
DELETE FROM sc_heap WHERE a BETWEEN 9000 AND 9100;
SELECT (sc_check('a < 100 OR a > 8900')).*;
BEGIN;
SELECT id FROM sc_nsm WHERE id IN (1, 2, 3) ORDER BY id FOR UPDATE;
COMMIT;

-- Cursors move both ways through the node (no SCROLL needed, as on a
-- sequential scan); the plain scan of the same table gives the same rows.
CREATE FUNCTION cursor_walk() RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	c refcursor := 'walk';
	r record;
	out text := '';
BEGIN
	OPEN c FOR SELECT id FROM sc_nsm WHERE a < 300;
	FETCH c INTO r; out := out || r.id || ' ';
	FETCH c INTO r; out := out || r.id || ' ';
	FETCH PRIOR FROM c INTO r; out := out || r.id || ' ';
	MOVE LAST FROM c;
	FETCH PRIOR FROM c INTO r; out := out || r.id || ' ';
	FETCH NEXT FROM c INTO r; out := out || r.id || ' ';
	FETCH NEXT FROM c INTO r; out := out || coalesce(r.id::text, 'end') || ' ';
	MOVE FIRST FROM c;
	FETCH PRIOR FROM c INTO r; out := out || coalesce(r.id::text, 'start');
	CLOSE c;
	RETURN out;
END
$$;
EXPLAIN (COSTS OFF) SELECT id FROM sc_nsm WHERE a < 300;
SELECT cursor_walk() AS pushdown;
SET quickstep.enable_pushdown = off;
SELECT cursor_walk() AS plain;
RESET quickstep.enable_pushdown;
DROP FUNCTION cursor_walk();

-- Columns added after the rows were written (missing values, one with a
-- default) read the same through the node.
ALTER TABLE sc_heap ADD COLUMN z1 int DEFAULT 5, ADD COLUMN z2 text;
ALTER TABLE sc_nsm ADD COLUMN z1 int DEFAULT 5, ADD COLUMN z2 text;
INSERT INTO sc_heap (id, a, c, z1, z2) VALUES (40001, 7, 'x', 6, 'new');
INSERT INTO sc_nsm (id, a, c, z1, z2) VALUES (40001, 7, 'x', 6, 'new');
SELECT pred, (sc_check(pred)).*
  FROM unnest(ARRAY['a < 100', 'z1 = 5', 'z1 = 6', 'z2 IS NULL', 'c > ''f'' AND z1 >= 5']) pred;

-- System columns the node does not carry keep the ordinary scan.
EXPLAIN (COSTS OFF) SELECT xmin FROM sc_nsm WHERE a < 10;
SELECT count(*) FROM sc_nsm WHERE a < 10 AND ctid IS NOT NULL;

DROP FUNCTION sc_check(text);
DROP FUNCTION explain_lines(text, text);
DROP TABLE sc_heap, sc_nsm;
