-- QuickstepScan on quickstep_column tables (issue 13, first slice): quals
-- pushed into the delta pages and the main blocks (skipped on min/max and
-- on dictionaries, evaluated on packed codes or decoded columns), rows
-- deleted or updated in the delete map dropped, only needed columns read.
-- Every query runs with quickstep.enable_pushdown on and off: same rows.
CREATE SCHEMA column_pushdown;
SET search_path = column_pushdown, public;
-- the scan's own rows: aggregates over it stay PostgreSQL's (aggregate
-- pushdown into the scan is sql/column_agg.sql's)
SET quickstep.enable_agg_pushdown = off;

-- A collation other than "C": ICU Swedish where the server has ICU ("Ä"
-- after "z"), else libc C.UTF-8, which PostgreSQL compares through
-- strcoll, not as bytes.  Results below do not depend on which.
DO $$
BEGIN
	IF EXISTS (SELECT FROM pg_collation WHERE collname = 'sv-x-icu') THEN
		CREATE COLLATION column_pushdown.nonc (provider = icu, locale = 'sv');
	ELSE
		CREATE COLLATION column_pushdown.nonc (provider = libc, locale = 'C.utf8');
	END IF;
END $$;

-- cmp(query): run it with pushdown on and off, compare count and a hash of
-- the rows; say whether the plan with pushdown on uses QuickstepScan.  With
-- pushdown on, operators are made dear so that the planner takes the
-- pushdown scan even where few rows are filtered (<>, IS NOT NULL).
CREATE FUNCTION cmp(q text) RETURNS text LANGUAGE plpgsql AS $f$
DECLARE
	r_on		text;
	r_off		text;
	pushed		bool := false;
	line		text;
	agg			text := 'SELECT count(*) || '' rows/'' || coalesce(sum(hashtext(x::text)), 0) FROM (%s) x';
BEGIN
	PERFORM set_config('quickstep.enable_pushdown', 'on', true);
	PERFORM set_config('cpu_operator_cost', '1', true);
	FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
		pushed := pushed OR line LIKE '%QuickstepScan%';
	END LOOP;
	EXECUTE format(agg, q) INTO r_on;
	PERFORM set_config('cpu_operator_cost', '0.0025', true);
	PERFORM set_config('quickstep.enable_pushdown', 'off', true);
	EXECUTE format(agg, q) INTO r_off;
	PERFORM set_config('quickstep.enable_pushdown', 'on', true);
	IF r_on IS DISTINCT FROM r_off THEN
		RETURN 'DIFFERENT: ' || r_on || ' with pushdown, ' || r_off || ' without';
	END IF;
	RETURN CASE WHEN pushed THEN 'pushed, ' ELSE 'NOT PUSHED, ' END ||
		split_part(r_on, '/', 1);
END
$f$;

-- 500 rows in the delta, the rest in blocks of 2000 rows sorted on id
CREATE TABLE cp (id int, i2 int2, i8 int8, f float8, d date, ts timestamp,
				 tc text COLLATE "C", tl text COLLATE nonc, tn text COLLATE "C",
				 fk int, pk int8)
	USING quickstep_column
	WITH (quickstep.rows_per_block = 2000, quickstep.sort_key = 'id',
		  quickstep.encoding_fk = 'for', quickstep.encoding_pk = 'plain');
SET quickstep.column_delta_rows = 500;
INSERT INTO cp
SELECT i, (i % 200 - 100)::int2, i::int8 * 1000003 - 5000000000,
	   CASE WHEN i % 97 = 0 THEN 'NaN' WHEN i % 89 = 0 THEN 'Infinity'
			WHEN i % 83 = 0 THEN '-Infinity' WHEN i % 79 = 0 THEN NULL
			ELSE (i % 1000) / 8.0 END,
	   date '2000-01-01' + i / 10,
	   timestamp '2000-01-01' + i * interval '37 minutes',
	   CASE WHEN i % 11 = 0 THEN NULL ELSE 'c' || (i % 60) END,
	   CASE WHEN i % 13 = 0 THEN NULL WHEN i % 3 = 0 THEN 'Äpple' || (i % 7)
			WHEN i % 3 = 1 THEN 'zebra' || (i % 5) ELSE 'apa' || (i % 9) END,
	   'n' || (i % 37), (i::int8 * 7919 % 1000)::int - 500, i % 300 - 150
FROM generate_series(1, 12000) i;
RESET quickstep.column_delta_rows;
SELECT count(*), sum(rows) FROM (SELECT DISTINCT block_id, rows FROM quickstep.blocks('cp')) b;
SELECT column_name, encoding FROM quickstep.blocks('cp') WHERE block_id = (SELECT min(block_id) FROM quickstep.blocks('cp')) ORDER BY column_name;

-- rows deleted and updated in main (delete map) and in the delta
DELETE FROM cp WHERE id % 500 = 7;
UPDATE cp SET i2 = 42, tc = 'updated', i8 = -i8 WHERE id % 700 = 3;
-- rows a later ALTER TABLE gave a column the blocks do not have
ALTER TABLE cp ADD COLUMN extra int DEFAULT 7;
INSERT INTO cp (id, i2, tc, extra) VALUES (20001, 5, 'c5', 8), (20002, NULL, NULL, NULL);

SELECT q, cmp(q) FROM (VALUES
	-- integers: every operator, the sort column (min/max skips blocks)
	('SELECT * FROM cp WHERE id = 3000'),
	('SELECT * FROM cp WHERE id < 2100'),
	('SELECT * FROM cp WHERE id <= 2100'),
	('SELECT * FROM cp WHERE id > 11900'),
	('SELECT * FROM cp WHERE id >= 11900'),
	('SELECT * FROM cp WHERE id <> 5000'),
	('SELECT * FROM cp WHERE id BETWEEN 4000 AND 4010'),
	('SELECT * FROM cp WHERE id IN (1, 600, 3333, 7777, 20001, 99999)'),
	('SELECT * FROM cp WHERE id NOT IN (1, 600, 3333)'),
	('SELECT * FROM cp WHERE id = ANY (''{}''::int[])'),
	('SELECT * FROM cp WHERE id <> ALL ((SELECT ''{}''::int[])::int[])'),
	('SELECT * FROM cp WHERE id = ANY ((SELECT ''{3000,NULL}''::int[])::int[])'),
	('SELECT * FROM cp WHERE id IN (1, NULL)'),
	('SELECT * FROM cp WHERE id = (SELECT NULL::int)'),
	('SELECT * FROM cp WHERE 5000 < id AND id < 5050'),
	-- int2 in a dictionary: code ranges, full and empty ones
	('SELECT id, i2 FROM cp WHERE i2 = 5'),
	('SELECT id, i2 FROM cp WHERE i2 < -90'),
	('SELECT id, i2 FROM cp WHERE i2 >= 95'),
	('SELECT id, i2 FROM cp WHERE i2 <> 0'),
	('SELECT id, i2 FROM cp WHERE i2 BETWEEN -3 AND 3'),
	('SELECT id, i2 FROM cp WHERE i2 >= -100'),
	('SELECT id, i2 FROM cp WHERE i2 > 99'),
	('SELECT id, i2 FROM cp WHERE i2 = 50 + 0'),
	('SELECT id, i2 FROM cp WHERE i2 < 100000'),
	('SELECT id, i2 FROM cp WHERE i2 > -40000'),
	('SELECT id, i2 FROM cp WHERE i2 = 40000'),
	('SELECT id, i2 FROM cp WHERE i2 IN (1, 2, 300)'),
	('SELECT id, i2 FROM cp WHERE i2 IS NULL'),
	-- int8, cross-type
	('SELECT id, i8 FROM cp WHERE i8 > 0'),
	('SELECT id, i8 FROM cp WHERE i8 < -4000000000::int8'),
	('SELECT id, i8 FROM cp WHERE i8 = 1000003 * 6000::int8 - 5000000000'),
	('SELECT id, i8 FROM cp WHERE i8 <= 5'),
	-- float8: NaN sorts above everything, infinities, NULLs
	('SELECT id, f FROM cp WHERE f = ''NaN'''),
	('SELECT id, f FROM cp WHERE f > ''Infinity'''),
	('SELECT id, f FROM cp WHERE f >= ''Infinity'''),
	('SELECT id, f FROM cp WHERE f < ''-Infinity'''),
	('SELECT id, f FROM cp WHERE f <= ''-Infinity'''),
	('SELECT id, f FROM cp WHERE f BETWEEN 10 AND 20.5'),
	('SELECT id, f FROM cp WHERE f <> 0.5'),
	('SELECT id, f FROM cp WHERE f IS NULL'),
	('SELECT id, f FROM cp WHERE f IN (0.125, ''NaN'')'),
	-- date and timestamp, also compared with each other
	('SELECT id, d FROM cp WHERE d = ''2000-03-01'''),
	('SELECT id, d FROM cp WHERE d < ''2000-01-15'''),
	('SELECT id, d FROM cp WHERE d < timestamp ''2000-01-15 12:00'''),
	('SELECT id, ts FROM cp WHERE ts >= ''2000-08-01'' AND ts < ''2000-08-02'''),
	('SELECT id, ts FROM cp WHERE ts > date ''2000-08-20'''),
	('SELECT id, ts FROM cp WHERE ts = ''2000-01-01 00:37'''),
	-- text, collation "C": dictionaries with NULLs, and without (tn)
	('SELECT id, tc FROM cp WHERE tc = ''c5'''),
	('SELECT id, tc FROM cp WHERE tc = ''c5x'''),
	('SELECT id, tc FROM cp WHERE tc < ''c2'''),
	('SELECT id, tc FROM cp WHERE tc >= ''c59'''),
	('SELECT id, tc FROM cp WHERE tc BETWEEN ''c1'' AND ''c2'''),
	('SELECT id, tc FROM cp WHERE tc > ''zzz'''),
	('SELECT id, tc FROM cp WHERE tc <> ''c7'''),
	('SELECT id, tc FROM cp WHERE tc IN (''c1'', ''c2'', ''nope'')'),
	('SELECT id, tc FROM cp WHERE tc IS NULL'),
	('SELECT id, tc FROM cp WHERE tc IS NOT NULL AND tn > ''n'''),
	('SELECT id, tc FROM cp WHERE tc LIKE ''c1%'''),
	('SELECT id, tn FROM cp WHERE tn = ''n7'''),
	('SELECT id, tn FROM cp WHERE tn < ''n2'''),
	('SELECT id, tn FROM cp WHERE tn <> ''n7'''),
	('SELECT id, tn FROM cp WHERE tn > ''n35'' AND tn <= ''n5'''),
	('SELECT id, tn FROM cp WHERE tn > ''n5'' AND tn < ''n2'''),
	('SELECT id, tn FROM cp WHERE tn BETWEEN ''n2'' AND ''n3'' AND tn <> ''n25'''),
	('SELECT id, tn FROM cp WHERE tn = ''n1x'''),
	('SELECT id, tn FROM cp WHERE tn >= ''a'''),
	-- integers compared a chunk at a time: FOR and plain stripes
	('SELECT id, fk FROM cp WHERE fk = 17'),
	('SELECT id, fk FROM cp WHERE fk < -490'),
	('SELECT id, fk FROM cp WHERE fk >= 499'),
	('SELECT id, fk FROM cp WHERE fk <> 0'),
	('SELECT id, fk FROM cp WHERE fk > -2147483648'),
	('SELECT id, fk FROM cp WHERE fk < 5000000000'),
	('SELECT id, fk FROM cp WHERE fk BETWEEN -3 AND 3 AND id > 3000'),
	('SELECT id, pk FROM cp WHERE pk = 17'),
	('SELECT id, pk FROM cp WHERE pk <= -140'),
	('SELECT id, pk FROM cp WHERE pk > 9223372036854775806'),
	('SELECT id, pk FROM cp WHERE pk < -9223372036854775807'),
	('SELECT id, pk FROM cp WHERE pk > 9223372036854775807'),
	('SELECT id, pk FROM cp WHERE pk < (-9223372036854775807 - 1)'),
	('SELECT id, pk FROM cp WHERE pk >= (-9223372036854775807 - 1)'),
	('SELECT id, pk FROM cp WHERE pk <> 5 AND pk > 140'),
	-- a column added after the blocks were written
	('SELECT id, extra FROM cp WHERE extra = 7'),
	('SELECT id, extra FROM cp WHERE extra > 7'),
	('SELECT id, extra FROM cp WHERE extra IS NULL'),
	-- conjunctions, and quals left above the scan
	('SELECT id FROM cp WHERE i2 = 5 AND tc = ''c5'' AND id > 100'),
	('SELECT id FROM cp WHERE i2 = 5 AND id % 3 = 0'),
	('SELECT id FROM cp WHERE id BETWEEN 2000 AND 9000 AND f > 100 AND d < ''2000-06-01'''),
	('SELECT count(*) FROM cp WHERE i2 = 42'),
	('SELECT ctid, id FROM cp WHERE id BETWEEN 6990 AND 7010'),
	-- OR is not pushed
	('SELECT id FROM cp WHERE id = 20001 OR id = 3')
) v(q);

-- the same under a collation that is not "C": a qual in the column's
-- collation uses min/max and the dictionary, one in another collation is
-- evaluated per row on the decoded values
SELECT q, cmp(q) FROM (VALUES
	('SELECT id, tl FROM cp WHERE tl = ''zebra3'''),
	('SELECT id, tl FROM cp WHERE tl = ''Äpple3'''),
	('SELECT id, tl FROM cp WHERE tl < ''b'''),
	('SELECT id, tl FROM cp WHERE tl > ''zebra4'''),
	('SELECT id, tl FROM cp WHERE tl BETWEEN ''apa'' AND ''apa5'''),
	('SELECT id, tl FROM cp WHERE tl <> ''apa1'''),
	('SELECT id, tl FROM cp WHERE tl IN (''apa1'', ''Äpple2'')'),
	('SELECT id, tl FROM cp WHERE tl = ''zebra'''),
	('SELECT id, tl FROM cp WHERE tl < ''b'' COLLATE "C"'),
	('SELECT id, tl FROM cp WHERE tl > ''Z'' COLLATE "C"'),
	('SELECT id, tl FROM cp WHERE tl IS NULL')
) v(q);

-- IN lists, NOT IN and x op ANY/ALL on dictionary columns: a set of codes
-- per block (each element's range of codes, united for ANY, intersected
-- for ALL), tested code by code instead of the operator on each value
SELECT q, cmp(q) FROM (VALUES
	('SELECT id, tc FROM cp WHERE tc NOT IN (''c1'', ''c2'', ''nope'')'),
	('SELECT id, tc FROM cp WHERE tc <> ALL (''{c3,c4}'')'),
	('SELECT id, tc FROM cp WHERE tc IN (''c1'', NULL)'),
	('SELECT id, tc FROM cp WHERE tc NOT IN (''c1'', NULL)'),
	('SELECT id, tc FROM cp WHERE tc = ANY (''{}''::text[])'),
	('SELECT id, tc FROM cp WHERE tc <> ALL (''{}''::text[])'),
	('SELECT id, tc FROM cp WHERE tc < ANY (''{c1,c3}'')'),
	('SELECT id, tc FROM cp WHERE tc > ALL (''{c1,c3}'')'),
	('SELECT id, tc FROM cp WHERE tc >= ANY (''{c0,zzz}'')'),
	('SELECT id, tc FROM cp WHERE tc IN (''nope'', ''zzz'')'),
	('SELECT id, tl FROM cp WHERE tl NOT IN (''apa1'', ''Äpple2'')'),
	('SELECT id, tl FROM cp WHERE tl < ANY (''{b,Äpple}'')'),
	('SELECT id, tn FROM cp WHERE tn IN (''n1'', ''n2'') AND tc IN (''c1'', ''c2'', ''c3'')')
) v(q);
-- char(n): equal values whatever their trailing blanks
CREATE TABLE cb (id int, c char(3)) USING quickstep_column;
SET quickstep.column_delta_rows = 0;
INSERT INTO cb SELECT i, (ARRAY['a', 'b', 'c', 'a b'])[i % 4 + 1] FROM generate_series(1, 5000) i;
RESET quickstep.column_delta_rows;
SELECT DISTINCT column_name, encoding FROM quickstep.blocks('cb') ORDER BY 1;
SELECT q, cmp(q) FROM (VALUES
	('SELECT id, c FROM cb WHERE c IN (''a'', ''b  '')'),
	('SELECT id, c FROM cb WHERE c NOT IN (''a '', ''a b'')'),
	('SELECT id, c FROM cb WHERE c = ANY (''{c,zz}''::bpchar[])')
) v(q);
-- a dictionary of 300 codes: sets across 64-code words
CREATE TABLE cw (id int, w text COLLATE "C") USING quickstep_column;
SET quickstep.column_delta_rows = 0;
INSERT INTO cw SELECT i, 'w' || lpad((i * 7 % 300)::text, 3, '0') FROM generate_series(1, 30000) i;
RESET quickstep.column_delta_rows;
SELECT DISTINCT column_name, encoding FROM quickstep.blocks('cw') ORDER BY 1;
CREATE FUNCTION wlist(a int, b int) RETURNS text LANGUAGE sql AS
$$ SELECT string_agg(quote_literal('w' || lpad(g::text, 3, '0')), ', ') FROM generate_series(a, b) g $$;
SELECT left(q, 60) AS q, cmp(q) FROM (VALUES
	('SELECT id, w FROM cw WHERE w IN (' || wlist(0, 69) || ')'),
	('SELECT id, w FROM cw WHERE w IN (' || wlist(63, 64) || ', ' || wlist(127, 129) || ', ''w299'')'),
	('SELECT id, w FROM cw WHERE w NOT IN (' || wlist(1, 200) || ')'),
	('SELECT id, w FROM cw WHERE w <> ALL (ARRAY[' || wlist(64, 191) || '])'),
	('SELECT id, w FROM cw WHERE w > ALL (''{w063,w100}'')'),
	('SELECT id, w FROM cw WHERE w < ALL (''{w200,w128}'') AND w >= ''w064'''),
	('SELECT id, w FROM cw WHERE w < ANY (''{w065,w130}'')'),
	('SELECT id, w FROM cw WHERE w >= ANY (''{w128,w250}'')'),
	('SELECT id, w FROM cw WHERE w <> ANY (''{w001,w002}'')'),
	('SELECT id, w FROM cw WHERE w <> ANY (''{w001}'')')
) v(q);
-- 200 codes: one byte a code, unpadded or not as the chooser finds smaller
CREATE TABLE c8 (id int, v text COLLATE "C") USING quickstep_column;
SET quickstep.column_delta_rows = 0;
INSERT INTO c8 SELECT i, 'v' || lpad((i * 7 % 200)::text, 3, '0') FROM generate_series(1, 30000) i;
RESET quickstep.column_delta_rows;
SELECT DISTINCT column_name, encoding FROM quickstep.blocks('c8') ORDER BY 1;
SELECT left(q, 60) AS q, cmp(q) FROM (VALUES
	('SELECT id, v FROM c8 WHERE v IN (''v000'', ''v063'', ''v064'', ''v199'', ''v500'')'),
	('SELECT id, v FROM c8 WHERE v NOT IN (''v001'', ''v128'')'),
	('SELECT id, v FROM c8 WHERE v > ALL (''{v010,v150}'')')
) v(q);
SELECT count(*) FILTER (WHERE c IN ('a', 'b  ')) AS in_ab,
       count(*) FILTER (WHERE c NOT IN ('a ', 'a b')) AS not_in
FROM cb;

-- code ranges on dictionary columns with NULLs (a row's code is found by
-- its rank among the non-NULL rows), across chunks of 4096 rows
CREATE TABLE cn (id int, a text COLLATE "C", b int2)
	USING quickstep_column WITH (quickstep.rows_per_block = 9000);
SET quickstep.column_delta_rows = 0;
INSERT INTO cn SELECT i, CASE WHEN i % 7 = 0 OR i BETWEEN 4000 AND 4200 THEN NULL
							  ELSE 'a' || (i * 13 % 40) END,
	   CASE WHEN i % 5 = 0 THEN NULL ELSE (i * 17 % 300)::int2 END
FROM generate_series(1, 18000) i;
RESET quickstep.column_delta_rows;
SELECT DISTINCT column_name, encoding FROM quickstep.blocks('cn') ORDER BY 1;
DELETE FROM cn WHERE id % 1000 = 1;
SELECT q, cmp(q) FROM (VALUES
	('SELECT * FROM cn WHERE a = ''a7'''),
	('SELECT * FROM cn WHERE a < ''a2'''),
	('SELECT * FROM cn WHERE a <> ''a7'''),
	('SELECT * FROM cn WHERE a BETWEEN ''a1'' AND ''a3'''),
	('SELECT * FROM cn WHERE a >= ''a0'''),
	('SELECT * FROM cn WHERE b = 17'),
	('SELECT * FROM cn WHERE b BETWEEN 10 AND 20 AND a > ''a3'''),
	('SELECT * FROM cn WHERE b <> 100 AND a <> ''a1''')
) v(q);

-- the plans, and blocks skipped by min/max and by the dictionary
EXPLAIN (COSTS OFF) SELECT id, tc FROM cp WHERE id BETWEEN 3000 AND 3100;
EXPLAIN (VERBOSE, COSTS OFF) SELECT id FROM cp WHERE i2 = 5 AND id % 3 = 0;
-- (the lines of EXPLAIN ANALYZE that PG 15 and 18 print alike)
CREATE FUNCTION explain_lines(q text) RETURNS SETOF text
LANGUAGE plpgsql AS $$
DECLARE
	l text;
BEGIN
	FOR l IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
		IF l ~ 'Storage|Blocks|Filter' THEN
			RETURN NEXT trim(l);
		END IF;
	END LOOP;
END
$$;
SELECT explain_lines('SELECT count(*) FROM cp WHERE id BETWEEN 3000 AND 3100');
SELECT explain_lines('SELECT count(*) FROM cp WHERE tc = ''c5x''');
SELECT explain_lines('SELECT count(*) FROM cp WHERE tn = ''n1x''');
SELECT explain_lines('SELECT count(*) FROM cp WHERE i2 = 5 AND tn = ''n7'' AND id % 2 = 1');
SELECT explain_lines('SELECT count(*) FROM cp WHERE id IS NULL');
SELECT explain_lines('SELECT count(*) FROM cp WHERE tn > ''n5'' AND tn < ''n2''');
SELECT explain_lines('SELECT count(*) FROM cp WHERE id IN (2500, 2600, 9999) AND i2 < 0');

-- rescans with new parameter values
SELECT v.x, (SELECT count(*) FROM cp WHERE i2 = v.x AND id > 600)
FROM (VALUES (5), (6), (42)) v(x);
SET quickstep.enable_pushdown = off;
SELECT v.x, (SELECT count(*) FROM cp WHERE i2 = v.x AND id > 600)
FROM (VALUES (5), (6), (42)) v(x);
RESET quickstep.enable_pushdown;

-- a snapshot taken before a delete of main rows still sees them; the
-- deleting transaction itself does not
BEGIN;
DECLARE before_delete CURSOR FOR SELECT count(*), sum(id) FROM cp WHERE i2 = 5;
DELETE FROM cp WHERE i2 = 5 AND id BETWEEN 3000 AND 9000;
FETCH ALL FROM before_delete;
SELECT count(*), sum(id) FROM cp WHERE i2 = 5;
SET LOCAL quickstep.enable_pushdown = off;
SELECT count(*), sum(id) FROM cp WHERE i2 = 5;
ROLLBACK;
SELECT count(*), sum(id) FROM cp WHERE i2 = 5;

-- rows found by the scan can be updated through their ctid
BEGIN;
UPDATE cp SET tc = 'touched' WHERE id BETWEEN 5000 AND 5004 AND i2 > -100;
SELECT cmp('SELECT id, tc FROM cp WHERE tc = ''touched''');
ROLLBACK;

-- blocks sorted on the qual's column (CREATE TABLE AS sorts them; INSERT
-- does not, its TIDs may be shown): the rows that can pass are one run,
-- found by binary search; ints with NULLs last (FOR), text codes (dict),
-- runs of equal values across the run's ends, bounds below, above and on
-- the blocks' min and max
CREATE TABLE cs USING quickstep_column
	WITH (quickstep.sort_key = 'k', quickstep.rows_per_block = 1000) AS
SELECT i AS id, CASE WHEN i % 41 = 0 THEN NULL ELSE (i * 7) % 500 END AS k,
	   'w' || lpad(((i * 13) % 300)::text, 3, '0') AS t, i % 10 AS g
FROM generate_series(1, 5000) i;
CREATE TABLE ct USING quickstep_column
	WITH (quickstep.sort_key = 't', quickstep.rows_per_block = 1000,
		  quickstep.encoding_t = 'dict') AS
SELECT id, k, t COLLATE "C" AS t, g FROM cs;
SELECT column_name, encoding, count(*) FROM quickstep.blocks('ct')
WHERE column_name = 't' GROUP BY 1, 2;
SELECT q, cmp(q) FROM (VALUES
	('SELECT * FROM cs WHERE k = 250'),
	('SELECT * FROM cs WHERE k = 0'),
	('SELECT * FROM cs WHERE k = 499'),
	('SELECT * FROM cs WHERE k = 500'),
	('SELECT * FROM cs WHERE k = -1'),
	('SELECT * FROM cs WHERE k < 3'),
	('SELECT * FROM cs WHERE k <= 3'),
	('SELECT * FROM cs WHERE k > 496'),
	('SELECT * FROM cs WHERE k >= 496'),
	('SELECT * FROM cs WHERE k BETWEEN 100 AND 120'),
	('SELECT * FROM cs WHERE k BETWEEN 120 AND 100'),
	('SELECT * FROM cs WHERE k > 100 AND k < 101'),
	('SELECT * FROM cs WHERE k >= 100 AND g = 3'),
	('SELECT * FROM cs WHERE k <> 250'),
	('SELECT * FROM ct WHERE t = ''w150'''),
	('SELECT * FROM ct WHERE t >= ''w295'''),
	('SELECT * FROM ct WHERE t < ''w005'''),
	('SELECT * FROM ct WHERE t BETWEEN ''w100'' AND ''w1105'''),
	('SELECT * FROM ct WHERE t > ''w299'''),
	('SELECT * FROM ct WHERE t = ''w150'' AND k > 200')
) v(q);
-- rows deleted from a sorted block stay gone inside the run
BEGIN;
DELETE FROM cs WHERE k = 250 AND id % 2 = 0;
SELECT cmp('SELECT * FROM cs WHERE k BETWEEN 249 AND 251');
ROLLBACK;
SELECT explain_lines('SELECT count(*) FROM cs WHERE k BETWEEN 100 AND 120');
SELECT explain_lines('SELECT count(*) FROM ct WHERE t = ''w150''');
SELECT explain_lines('SELECT count(*) FROM cs WHERE k <> 250');

RESET search_path;
DROP SCHEMA column_pushdown CASCADE;
