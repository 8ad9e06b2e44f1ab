-- Parallel QuickstepScan on quickstep_column tables (issue 13): workers
-- claim the delta's pages and then the main blocks from shared state; every
-- row comes out exactly once, as in the serial scan without pushdown.
CREATE SCHEMA column_parallel;
SET search_path = column_parallel, public;
-- the scan's own rows: aggregates over it stay PostgreSQL's (aggregate
-- pushdown into the scan is sql/column_agg.sql's)
SET quickstep.enable_agg_pushdown = off;

-- run(query): its rows through RETURN QUERY, which may run parallel (EXECUTE
-- ... INTO runs with a tuple count, and then PostgreSQL starts no workers)
CREATE FUNCTION run(q text) RETURNS SETOF text LANGUAGE plpgsql AS $f$
BEGIN
	RETURN QUERY EXECUTE q;
END
$f$;

-- cmp(query): count and hash of the rows of the parallel pushdown scan
-- (forced) and of the serial plain scan; says whether the parallel plan
-- was a Parallel QuickstepScan, and whether both read the same number of
-- main blocks (EXPLAIN ANALYZE totals over the leader and the workers).
CREATE FUNCTION cmp(q text) RETURNS text LANGUAGE plpgsql AS $f$
DECLARE
	r_par		text;
	r_ser		text;
	par			bool := false;
	line		text;
	agg			text := 'SELECT count(*) || '' rows/'' || coalesce(sum(hashtext(x::text)), 0) FROM (%s) x';
	j			json;
	b_par		bigint;
	b_ser		bigint;
BEGIN
	PERFORM set_config('parallel_setup_cost', '0', true);
	PERFORM set_config('parallel_tuple_cost', '0', true);
	PERFORM set_config('min_parallel_table_scan_size', '0', true);
	PERFORM set_config('max_parallel_workers_per_gather', '2', true);
	PERFORM set_config('parallel_leader_participation', 'off', true);
	PERFORM set_config('cpu_operator_cost', '1', true);
	FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
		par := par OR line LIKE '%Parallel Custom Scan (QuickstepScan)%';
	END LOOP;
	SELECT x INTO r_par FROM run(format(agg, q)) x;
	EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, FORMAT JSON) ' || q INTO j;
	b_par := (j->0->'Plan'->'Plans'->0->>'Column Blocks Read')::bigint;
	PERFORM set_config('max_parallel_workers_per_gather', '0', true);
	EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, FORMAT JSON) ' || q INTO j;
	b_ser := (j->0->'Plan'->>'Column Blocks Read')::bigint;
	PERFORM set_config('cpu_operator_cost', '0.0025', true);
	PERFORM set_config('quickstep.enable_pushdown', 'off', true);
	EXECUTE format(agg, q) INTO r_ser;
	PERFORM set_config('quickstep.enable_pushdown', 'on', true);
	PERFORM set_config('max_parallel_workers_per_gather', '2', true);
	PERFORM set_config('parallel_leader_participation', 'on', true);
	IF r_par IS DISTINCT FROM r_ser THEN
		RETURN 'DIFFERENT: ' || r_par || ' parallel, ' || r_ser || ' serial';
	END IF;
	IF b_par IS DISTINCT FROM b_ser THEN
		RETURN 'BLOCKS: ' || coalesce(b_par::text, '?') || ' parallel, ' ||
			coalesce(b_ser::text, '?') || ' serial';
	END IF;
	RETURN CASE WHEN par THEN 'parallel, ' ELSE 'NOT PARALLEL, ' END ||
		split_part(r_par, '/', 1);
END
$f$;

-- 300 rows in the delta, the rest in blocks of 1000 rows sorted on id
CREATE TABLE cpar (id int, g int, t text COLLATE "C", f float8)
	USING quickstep_column
	WITH (quickstep.rows_per_block = 1000, quickstep.sort_key = 'id');
SET quickstep.column_delta_rows = 300;
INSERT INTO cpar
SELECT i, i % 17, CASE WHEN i % 13 = 0 THEN NULL ELSE 't' || (i % 40) END,
	   CASE WHEN i % 11 = 0 THEN NULL ELSE i / 7.0 END
FROM generate_series(1, 20000) i;
RESET quickstep.column_delta_rows;
SELECT count(*) > 10 AS many_blocks FROM (SELECT DISTINCT block_id FROM quickstep.blocks('cpar')) b;
-- deleted and updated rows in main (delete map) and the delta
DELETE FROM cpar WHERE id % 400 = 9;
UPDATE cpar SET g = -1, t = 'updated' WHERE id % 900 = 5;
INSERT INTO cpar VALUES (30001, 3, 't3', 1), (30002, NULL, NULL, NULL);
ANALYZE cpar;

SELECT q, cmp(q) FROM (VALUES
	('SELECT * FROM cpar WHERE id = 3000'),
	('SELECT * FROM cpar WHERE id < 2100'),
	('SELECT * FROM cpar WHERE id > 19500'),
	('SELECT * FROM cpar WHERE id BETWEEN 4000 AND 4010'),
	('SELECT * FROM cpar WHERE id <> 5000'),
	('SELECT * FROM cpar WHERE id IN (1, 1000, 1001, 9999, 30001)'),
	('SELECT * FROM cpar WHERE g = 3'),
	('SELECT * FROM cpar WHERE g = -1'),
	('SELECT id, t FROM cpar WHERE t = ''t7'''),
	('SELECT id, t FROM cpar WHERE t IS NULL'),
	('SELECT id, t FROM cpar WHERE t = ''updated'''),
	('SELECT id, f FROM cpar WHERE f > 2000'),
	('SELECT id, f FROM cpar WHERE f IS NULL AND g < 5'),
	('SELECT * FROM cpar WHERE id > 100000'),
	('SELECT g, t FROM cpar WHERE id % 3 = 0 AND g >= 0')
) v(q);

-- the plans
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF) SELECT count(*) FROM cpar WHERE g = 3;
EXPLAIN (COSTS OFF) SELECT * FROM cpar WHERE t = 't7' AND f > 10;
SELECT count(*), sum(id) FROM cpar WHERE g = 3;
-- a rescanned parallel scan (the Gather's DSM reinitialized)
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET enable_material = off;
SET parallel_leader_participation = off;
EXPLAIN (COSTS OFF)
SELECT * FROM (SELECT count(*), sum(id) FROM cpar WHERE g = 3) ss RIGHT JOIN (VALUES (1), (2), (3)) v(k) ON true;
SELECT * FROM (SELECT count(*), sum(id) FROM cpar WHERE g = 3) ss RIGHT JOIN (VALUES (1), (2), (3)) v(k) ON true;
RESET parallel_leader_participation;
RESET enable_hashjoin;
RESET enable_mergejoin;
RESET enable_material;

-- rows merged from the delta into main after they were counted
SELECT quickstep.merge('cpar') > 0 AS merged;
SELECT q, cmp(q) FROM (VALUES
	('SELECT * FROM cpar WHERE g = 3'),
	('SELECT * FROM cpar WHERE id >= 19000')
) v(q);

-- a range on the sort key inside one large block: the participant that
-- claims it publishes the rows it has not taken, and the others, finding no
-- block left, take halves of them (exec.c, steal_range); still every row
-- once, and the blocks counted are those claimed
CREATE TABLE cbig (id int, g int, t text) USING quickstep_column
	WITH (quickstep.rows_per_block = 100000, quickstep.sort_key = 'id');
INSERT INTO cbig SELECT i, i % 7, 'v' || (i % 1000) FROM generate_series(1, 200000) i;
DELETE FROM cbig WHERE id % 1000 = 17;
ANALYZE cbig;
SELECT count(DISTINCT block_id) AS blocks FROM quickstep.blocks('cbig');
SELECT q, cmp(q) FROM (VALUES
	('SELECT id, t FROM cbig WHERE id BETWEEN 20000 AND 90000 AND md5(t) <> '''''),
	('SELECT id FROM cbig WHERE id BETWEEN 99000 AND 101000 AND g < 3'),
	('SELECT * FROM cbig WHERE g = 3 AND md5(t) > ''8''')
) v(q);
DROP TABLE cbig;

-- costs that know skipping: a range on the sort key (blocks in its order,
-- correlation near 1) is costed at the blocks it visits, a qual of the same
-- selectivity on a column spread over every block at all of them
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
SET max_parallel_workers_per_gather = 0;
CREATE FUNCTION cost_of(q text) RETURNS float8 LANGUAGE plpgsql AS $f$
DECLARE j json;
BEGIN
	EXECUTE 'EXPLAIN (FORMAT JSON) ' || q INTO j;
	RETURN (j->0->'Plan'->>'Total Cost')::float8;
END
$f$;
SELECT attname, correlation > 0.9 AS follows_order FROM pg_stats
WHERE schemaname = 'column_parallel' AND tablename = 'cpar' AND attname IN ('id', 'g')
ORDER BY 1;
EXPLAIN (COSTS OFF) SELECT * FROM cpar WHERE id BETWEEN 1 AND 1176;
EXPLAIN (COSTS OFF) SELECT * FROM cpar WHERE g = 3;
SELECT cost_of('SELECT * FROM cpar WHERE id BETWEEN 1 AND 1176') <
	   0.5 * cost_of('SELECT * FROM cpar WHERE g = 3') AS sort_key_cheaper,
	   cost_of('SELECT * FROM cpar WHERE id BETWEEN 1 AND 1176') <
	   0.3 * (SELECT cost_of('SELECT * FROM cpar WHERE id BETWEEN 1 AND 1176')
			  FROM set_config('quickstep.enable_pushdown', 'off', false)) AS below_seq_scan;
RESET quickstep.enable_pushdown;

-- a qual that keeps one row still reads a whole block of its column (and
-- the delta whole): a primary-key lookup takes the index, as on heap
-- (costed at one row, single-row UPDATEs scanned the table: W5, 60x slower)
CREATE TABLE cpk (id int8 PRIMARY KEY, v int) USING quickstep_column;
INSERT INTO cpk SELECT i, i % 100 FROM generate_series(1, 200000) i;
ANALYZE cpk;
SELECT count(DISTINCT block_id) AS blocks FROM quickstep.blocks('cpk');
EXPLAIN (COSTS OFF) SELECT * FROM cpk WHERE id = 123456;
EXPLAIN (COSTS OFF) UPDATE cpk SET v = v + 1 WHERE id = 123456;
-- the scan of one block is still offered and cheaper than all of them
SET enable_indexscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT * FROM cpk WHERE id = 123456;
SELECT cost_of('SELECT * FROM cpk WHERE id = 123456') <
	   0.75 * cost_of('SELECT * FROM cpk WHERE v = 7') AS one_block_cheaper;
RESET enable_indexscan;
RESET enable_bitmapscan;
DROP TABLE cpk;
RESET max_parallel_workers_per_gather;

DROP SCHEMA column_parallel CASCADE;
