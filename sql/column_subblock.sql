-- Index sub-blocks (issue 13): quickstep.index_columns gives the blocks a
-- table writes sealed (loads, seals, merges, rewrites) a CSB+-tree over
-- the codes of each listed dictionary column; QuickstepScan probes it for
-- selective quals on that column.  Every query's rows equal heap's, with
-- the probe, without pushdown, serial and parallel.
CREATE SCHEMA column_subblock;
SET search_path = column_subblock, public;
SET quickstep.enable_agg_pushdown = off;

-- the option: checked like sort_key
CREATE TABLE bad (a int, t text, f float8, n numeric) USING quickstep_column;
ALTER TABLE bad SET (quickstep.index_columns = 'nope');
ALTER TABLE bad SET (quickstep.index_columns = 'a, t, a');
ALTER TABLE bad SET (quickstep.index_columns = 'f');
ALTER TABLE bad SET (quickstep.index_columns = 'n');
ALTER TABLE bad SET (quickstep.index_columns = 'a,,t');
ALTER TABLE bad SET (quickstep.index_columns = ' a , t ');
SELECT name, value FROM quickstep.column_options WHERE relid = 'bad'::regclass;
ALTER TABLE bad RENAME COLUMN t TO tt;
SELECT name, value FROM quickstep.column_options WHERE relid = 'bad'::regclass;
ALTER TABLE bad DROP COLUMN a;
SELECT name, value FROM quickstep.column_options WHERE relid = 'bad'::regclass;
ALTER TABLE bad DROP COLUMN tt;
SELECT name, value FROM quickstep.column_options WHERE relid = 'bad'::regclass;
CREATE TABLE badheap (a int) WITH (quickstep.index_columns = 'a');
DROP TABLE bad;

-- g: 1000 text values, k: 400 integers (dictionary forced), n: text with
-- NULLs; none is the sort key, rows arrive in id order
CREATE TABLE cs (id int, g text COLLATE "C", k int, n text COLLATE "C", f float8)
	USING quickstep_column
	WITH (quickstep.rows_per_block = 10000, quickstep.sort_key = 'id',
		  quickstep.encoding_k = 'dict', quickstep.encoding_g = 'dict',
		  quickstep.encoding_n = 'dict');
CREATE TABLE hs (id int, g text COLLATE "C", k int, n text COLLATE "C", f float8);
CREATE FUNCTION gen(lo int, hi int) RETURNS TABLE (id int, g text, k int, n text, f float8)
LANGUAGE sql AS $$
	SELECT i, 'g' || lpad(((i::int8 * 7919) % 1000)::text, 4, '0'),
		   ((i::int8 * 104729) % 400)::int - 200,
		   CASE WHEN i % 7 = 0 THEN NULL ELSE 'n' || (i % 300) END,
		   (i % 100) / 4.0
	FROM generate_series(lo, hi) i
$$;
-- the first block is written before the option: it has no sub-block
INSERT INTO cs SELECT * FROM gen(1, 10000);
ALTER TABLE cs SET (quickstep.index_columns = 'g,k,n');
SELECT name, value FROM quickstep.column_options WHERE relid = 'cs'::regclass ORDER BY name;
SET quickstep.column_delta_rows = 500;
INSERT INTO cs SELECT * FROM gen(10001, 40500);
RESET quickstep.column_delta_rows;
INSERT INTO hs SELECT * FROM gen(1, 40500);
SELECT count(DISTINCT block_id), sum(rows) / 5 FROM quickstep.blocks('cs');
-- rows deleted and updated in main, fresh rows in the delta
DELETE FROM cs WHERE id % 500 = 7;
DELETE FROM hs WHERE id % 500 = 7;
UPDATE cs SET g = 'g0001', k = 5 WHERE id % 700 = 3;
UPDATE hs SET g = 'g0001', k = 5 WHERE id % 700 = 3;
INSERT INTO cs SELECT * FROM gen(50001, 50200);
INSERT INTO hs SELECT * FROM gen(50001, 50200);
SELECT quickstep.check_table('cs') > 0 AS checked;

-- cmpt(table, heap table, where): the rows of the table (pushdown forced,
-- and pushdown off) and of the heap table for one WHERE clause, as count
-- and hash; says whether the index was probed.  cmp(where): cs against hs.
CREATE FUNCTION cmpt(t text, h text, w text) RETURNS text LANGUAGE plpgsql AS $f$
DECLARE
	r_t			text;
	r_off		text;
	r_h			text;
	probes		bigint;
	par			bool;
	j			json;
	agg			text := 'SELECT count(*) || '' rows/'' || coalesce(sum(hashtext(x::text)), 0) FROM (SELECT * FROM %s WHERE %s) x';
BEGIN
	PERFORM set_config('quickstep.enable_pushdown', 'on', true);
	PERFORM set_config('cpu_operator_cost', '1', true);
	EXECUTE format('EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, FORMAT JSON) SELECT * FROM %s WHERE %s', t, w) INTO j;
	probes := coalesce((j->0->'Plan'->>'Sub-block Probes')::bigint,
					   (j->0->'Plan'->'Plans'->0->>'Sub-block Probes')::bigint);
	par := j->0->'Plan'->>'Node Type' = 'Gather';
	EXECUTE format(agg, t, w) INTO r_t;
	PERFORM set_config('cpu_operator_cost', '0.0025', true);
	PERFORM set_config('quickstep.enable_pushdown', 'off', true);
	EXECUTE format(agg, t, w) INTO r_off;
	PERFORM set_config('quickstep.enable_pushdown', 'on', true);
	EXECUTE format(agg, h, w) INTO r_h;
	IF r_t IS DISTINCT FROM r_h OR r_off IS DISTINCT FROM r_h THEN
		RETURN 'DIFFERENT: ' || r_t || ' probed, ' || r_off || ' plain, ' || r_h || ' heap';
	END IF;
	RETURN split_part(r_t, '/', 1) || ', probes ' || coalesce(probes::text, 'none') ||
		CASE WHEN par THEN ' (parallel)' ELSE '' END;
END
$f$;
CREATE FUNCTION cmp(w text) RETURNS text LANGUAGE sql AS $$ SELECT cmpt('cs', 'hs', w) $$;

SELECT w, cmp(w) FROM (VALUES
	('g = ''g0123'''),
	('g = ''g0001'''),
	('g = ''nothing'''),
	('g >= ''g0100'' AND g < ''g0105'''),
	('g BETWEEN ''g0500'' AND ''g0502'''),
	('g < ''g0003'''),
	('g > ''g0990'''),
	('g > ''g0100'''),
	('g IN (''g0010'', ''g0020'', ''g0010'', ''zz'')'),
	('g IN (''g0010'', NULL)'),
	('g = ANY (''{}''::text[])'),
	('k = 17'),
	('k = 5'),
	('k BETWEEN -3 AND -1'),
	('k IN (1, 2, 3)'),
	('k < -195'),
	('k > 0'),
	('n = ''n17'''),
	('n IS NULL'),
	('n IS NULL AND g = ''g0123'''),
	('n = ''n17'' AND g < ''g0500'''),
	('g = ''g0123'' AND k > 0 AND f < 10'),
	('g = ''g0123'' AND id BETWEEN 12000 AND 20000'),
	('g = ''g0123'' OR k = 17')
) v(w);

-- the probe really runs: one per block with the sub-block
CREATE FUNCTION explain_lines(q text) RETURNS SETOF text
LANGUAGE plpgsql AS $$
DECLARE
	l text;
BEGIN
	PERFORM set_config('cpu_operator_cost', '1', true);
	FOR l IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
		IF l ~ 'Storage|Blocks|Probes' THEN
			RETURN NEXT trim(l);
		END IF;
	END LOOP;
	PERFORM set_config('cpu_operator_cost', '0.0025', true);
END
$$;
SELECT explain_lines('SELECT count(id) FROM cs WHERE g = ''g0123''');
SELECT explain_lines('SELECT count(id) FROM cs WHERE k IN (1, 2)');
-- not selective enough: the stripe is scanned
SELECT explain_lines('SELECT count(id) FROM cs WHERE g > ''g0100''');

-- parallel: workers probe the blocks they claim
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SELECT w, cmp(w) FROM (VALUES
	('g = ''g0123'''),
	('k IN (1, 2, 3)'),
	('n = ''n17'' AND g < ''g0500''')
) v(w);
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;

-- a seal and VACUUM FULL keep the sub-blocks right
SELECT quickstep.seal('cs') >= 0 AS sealed;
VACUUM FULL cs;
SELECT quickstep.check_table('cs') > 0 AS checked;
SELECT w, cmp(w) FROM (VALUES ('g = ''g0123'''), ('k BETWEEN -3 AND -1')) v(w);

-- without a sort key, the merge that fills the open block seals it with
-- its sub-blocks (four merges of 300 rows into blocks of 1000)
CREATE TABLE mo (id int, g text COLLATE "C") USING quickstep_column
  WITH (quickstep.rows_per_block = 1000, quickstep.index_columns = 'g',
		quickstep.encoding_g = 'dict');
CREATE TABLE mh (id int, g text COLLATE "C");
INSERT INTO mo SELECT i, 'v' || (i % 500) FROM generate_series(1, 300) i;
SELECT quickstep.merge('mo');
INSERT INTO mo SELECT i, 'v' || (i % 500) FROM generate_series(301, 600) i;
SELECT quickstep.merge('mo');
INSERT INTO mo SELECT i, 'v' || (i % 500) FROM generate_series(601, 900) i;
SELECT quickstep.merge('mo');
INSERT INTO mo SELECT i, 'v' || (i % 500) FROM generate_series(901, 1200) i;
SELECT quickstep.merge('mo');
INSERT INTO mh SELECT i, 'v' || (i % 500) FROM generate_series(1, 1200) i;
SELECT DISTINCT block_id, state, rows FROM quickstep.blocks('mo') ORDER BY 1;
SELECT quickstep.check_table('mo') > 0 AS checked;
SELECT explain_lines('SELECT id FROM mo WHERE g = ''v17''');
SELECT count(*), sum(id) FROM mo WHERE g = 'v17';
SELECT count(*), sum(id) FROM mh WHERE g = 'v17';

-- FOR integer columns (issue 13): a CSB+-tree over value - min, the qual's
-- range turned into those codes with the block's min/max.  a: int4, 20000
-- values, NULLs; b: int8 spread over 5e6 from 1e12; w: int8 values 2^32
-- and more apart (FOR, but no sub-block: its codes would not fit u32)
CREATE TABLE ci (id int, a int, b int8, w int8) USING quickstep_column
	WITH (quickstep.rows_per_block = 10000, quickstep.sort_key = 'id',
		  quickstep.encoding_a = 'for', quickstep.encoding_b = 'for',
		  quickstep.encoding_w = 'for');
CREATE TABLE hi (id int, a int, b int8, w int8);
CREATE FUNCTION geni(lo int, hi int) RETURNS TABLE (id int, a int, b int8, w int8)
LANGUAGE sql AS $$
	SELECT i, CASE WHEN i % 9 = 0 THEN NULL ELSE ((i::int8 * 104729) % 20000)::int - 10000 END,
		   1000000000000 + (i::int8 * 7919) % 5000000,
		   (i % 3) * 5000000000 + i
	FROM generate_series(lo, hi) i
$$;
INSERT INTO ci SELECT * FROM geni(1, 10000);
ALTER TABLE ci SET (quickstep.index_columns = 'a,b,w');
SET quickstep.column_delta_rows = 500;
INSERT INTO ci SELECT * FROM geni(10001, 40500);
RESET quickstep.column_delta_rows;
INSERT INTO hi SELECT * FROM geni(1, 40500);
DELETE FROM ci WHERE id % 500 = 7;
DELETE FROM hi WHERE id % 500 = 7;
UPDATE ci SET a = 17, b = 1000000000123 WHERE id % 700 = 3;
UPDATE hi SET a = 17, b = 1000000000123 WHERE id % 700 = 3;
INSERT INTO ci SELECT * FROM geni(50001, 50200);
INSERT INTO hi SELECT * FROM geni(50001, 50200);
SELECT DISTINCT column_name, encoding FROM quickstep.blocks('ci')
  WHERE column_name IN ('a', 'b', 'w') ORDER BY 1, 2;
SELECT quickstep.check_table('ci') > 0 AS checked;

SELECT w, cmpt('ci', 'hi', w) FROM (VALUES
	('a = 17'),
	('a = -10000'),
	('a = 9999'),
	('a = 10000'),
	('a = 123456'),
	('a BETWEEN 100 AND 150'),
	('a >= 100 AND a < 120'),
	('a > 100 AND a <= 120 AND a <> 110'),
	('a < -9990'),
	('a > 9990'),
	('a > 0'),
	('a IN (1, 2, 3, 50000)'),
	('a IN (1, NULL, 1)'),
	('a = ANY (''{}''::int[])'),
	('a IS NULL'),
	('a = 17 AND b > 1000000002000'),
	('a = 17 AND id BETWEEN 12000 AND 20000'),
	('a = 17::int8'),
	('a = 17 OR b = 5'),
	('b = 1000000000123'),
	('b BETWEEN 1000000001000 AND 1000000001200'),
	('b IN (1000000000001, 1000000004999, 7)'),
	('b < 1000000000100'),
	('w = 10000000001'),
	('w BETWEEN 5000000000 AND 5000000100')
) v(w);
SELECT explain_lines('SELECT count(id) FROM ci WHERE a = 17');
SELECT explain_lines('SELECT count(id) FROM ci WHERE b BETWEEN 1000000001000 AND 1000000001200');
-- not selective enough, or no sub-block (w): the stripe is scanned
SELECT explain_lines('SELECT count(id) FROM ci WHERE a > 0');
SELECT explain_lines('SELECT count(id) FROM ci WHERE w = 10000000001');
-- aggregate pushdown reads the probe's rows too
SET quickstep.enable_agg_pushdown = on;
SELECT count(*), sum(b) FROM ci WHERE a BETWEEN 100 AND 150;
SELECT count(*), sum(b) FROM hi WHERE a BETWEEN 100 AND 150;
RESET quickstep.enable_agg_pushdown;
SET quickstep.enable_agg_pushdown = off;
SELECT quickstep.seal('ci') >= 0 AS sealed;
VACUUM FULL ci;
SELECT quickstep.check_table('ci') > 0 AS checked;
SELECT w, cmpt('ci', 'hi', w) FROM (VALUES ('a = 17'), ('b IN (1000000000001, 1000000004999)')) v(w);

-- a column renamed to a name the list cannot hold leaves the option (a
-- dump of the list must restore): a NOTICE, as for sort_key
CREATE TABLE rn (g text, h text) USING quickstep_column
  WITH (quickstep.index_columns = 'g,h');
ALTER TABLE rn RENAME COLUMN g TO "x,y";
ALTER TABLE rn RENAME COLUMN h TO " h";
SELECT name, value FROM quickstep.column_options WHERE relid = 'rn'::regclass
  ORDER BY name;

-- columns past the 64th get their sub-blocks too
DO $$ BEGIN EXECUTE 'CREATE TABLE wide (' ||
  (SELECT string_agg('c' || i || ' int', ', ') FROM generate_series(1, 69) i) ||
  ', g text, k text) USING quickstep_column WITH (quickstep.index_columns = ''g,k'')'; END $$;
INSERT INTO wide (c1, g, k)
  SELECT i, 'v' || (i % 500), 'k' || (i % 500) FROM generate_series(1, 20000) i;
SELECT explain_lines('SELECT c1 FROM wide WHERE g = ''v17''');
SELECT count(*), sum(c1) FROM wide WHERE g = 'v17';
SET quickstep.enable_pushdown = off;
SELECT count(*), sum(c1) FROM wide WHERE g = 'v17';
RESET quickstep.enable_pushdown;

DROP SCHEMA column_subblock CASCADE;
