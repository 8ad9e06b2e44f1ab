-- Quals on FOR columns evaluated on the packed residues (issue 13: the
-- codec's range kernel over [lo - base, hi - base], no value decoded), a
-- block every row of which passes (its min/max say so) counted without
-- reading a row, and count(*) of a sorted block's run found by binary
-- search.  Every query runs with quickstep.enable_pushdown on and off (and
-- the aggregates also on a heap twin): same answers.
CREATE SCHEMA column_for_codes;
SET search_path = column_for_codes, public;

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

-- Blocks of 1000 rows, every column FOR: residues of 1 to 34 bits, bases
-- negative, near the int4 limits, int8 values beyond int4's range.
CREATE TABLE fc (id int, neg int, hi4 int, lo4 int, one int, wide8 int8,
				 big8 int8, d date, ts timestamp, c int)
	USING quickstep_column
	WITH (quickstep.rows_per_block = 1000,
		  quickstep.encoding_id = 'for', quickstep.encoding_neg = 'for',
		  quickstep.encoding_hi4 = 'for', quickstep.encoding_lo4 = 'for',
		  quickstep.encoding_one = 'for', quickstep.encoding_wide8 = 'for',
		  quickstep.encoding_big8 = 'for', quickstep.encoding_d = 'for',
		  quickstep.encoding_ts = 'for', quickstep.encoding_c = 'for');
CREATE TABLE fh (LIKE fc) USING heap;
INSERT INTO fh
SELECT i,
	   (i * 7919 % 100000) - 150000,					-- negative, 17 bits
	   2147483647 - (i * 7919 % 3000),					-- up to int4's max
	   -2147483648 + (i * 104729 % 1000000),			-- from int4's min
	   i % 2,											-- 1 bit
	   (i::int8 * 2654435761) % 17179869184,			-- 34 bits
	   5000000000 + (i * 7919 % 70000),				-- beyond int4
	   date '2000-01-01' + (hashint4(i) & 4095),
	   timestamp '2000-01-01' + (i * 7919 % 4000) * interval '1 second',	-- 32 bits
	   i % 5 + 3										-- block min 3, max 7
FROM generate_series(1, 6000) i;
INSERT INTO fc SELECT * FROM fh;
SELECT count(*) AS blocks, sum(rows) AS rows
FROM (SELECT DISTINCT block_id, rows FROM quickstep.blocks('fc')) b;
SELECT DISTINCT column_name, encoding FROM quickstep.blocks('fc') ORDER BY 1;

SET quickstep.enable_agg_pushdown = off;
SELECT q, cmp(q) FROM (VALUES
	('SELECT id, neg FROM fc WHERE neg < -120000'),
	('SELECT id, neg FROM fc WHERE neg >= -150000'),
	('SELECT id, neg FROM fc WHERE neg > -150000'),
	('SELECT id, neg FROM fc WHERE neg <= -50001'),
	('SELECT id, neg FROM fc WHERE neg < -50001'),
	('SELECT id, neg FROM fc WHERE neg = -100000 + 17'),
	('SELECT id, neg FROM fc WHERE neg <> -149000'),
	('SELECT id, neg FROM fc WHERE neg BETWEEN -140000 AND -139000'),
	('SELECT id, neg FROM fc WHERE neg < -9999999999::int8'),
	('SELECT id, neg FROM fc WHERE neg > -9999999999::int8'),
	('SELECT id, neg FROM fc WHERE neg <> 5'),
	('SELECT id, hi4 FROM fc WHERE hi4 > 2147482000'),
	('SELECT id, hi4 FROM fc WHERE hi4 >= 2147483647'),
	('SELECT id, hi4 FROM fc WHERE hi4 < 2147483000'),
	('SELECT id, hi4 FROM fc WHERE hi4 < 3000000000::int8'),
	('SELECT id, hi4 FROM fc WHERE hi4 > 3000000000::int8'),
	('SELECT id, lo4 FROM fc WHERE lo4 < -2147000000'),
	('SELECT id, lo4 FROM fc WHERE lo4 <= -2147483648'),
	('SELECT id, lo4 FROM fc WHERE lo4 > -2147483648'),
	('SELECT id, lo4 FROM fc WHERE lo4 >= -3000000000::int8'),
	('SELECT id, one FROM fc WHERE one = 1'),
	('SELECT id, one FROM fc WHERE one <> 1'),
	('SELECT id, one FROM fc WHERE one > 0 AND one < 1'),
	('SELECT id, wide8 FROM fc WHERE wide8 < 1000000000'),
	('SELECT id, wide8 FROM fc WHERE wide8 > 17000000000'),
	('SELECT id, big8 FROM fc WHERE big8 < 5000030000'),
	('SELECT id, big8 FROM fc WHERE big8 >= 5000069000'),
	('SELECT id, big8 FROM fc WHERE big8 <> 5000000000'),
	('SELECT id, big8 FROM fc WHERE big8 = 5000007919'),
	('SELECT id, big8 FROM fc WHERE big8 > 2147483647'),
	('SELECT id, d FROM fc WHERE d < date ''2003-01-01'''),
	('SELECT id, d FROM fc WHERE d BETWEEN date ''2005-01-01'' AND date ''2005-02-01'''),
	('SELECT id, ts FROM fc WHERE ts >= timestamp ''2000-01-01 01:00'''),
	('SELECT id, ts FROM fc WHERE ts < timestamp ''2000-01-01 00:00:01'''),
	('SELECT id, ts FROM fc WHERE ts <= timestamp ''2000-01-01 01:06:39'''),
	('SELECT id, ts FROM fc WHERE ts > timestamp ''2000-01-01 01:06:38'''),
	('SELECT id, c FROM fc WHERE c >= 3'),
	('SELECT id, c FROM fc WHERE c BETWEEN 0 AND 100'),
	('SELECT id, c FROM fc WHERE c > 7'),
	('SELECT id, c FROM fc WHERE c <= 3'),
	('SELECT id, c FROM fc WHERE c < 7'),
	('SELECT id, c FROM fc WHERE c <= 7'),
	('SELECT id, c FROM fc WHERE c = 7'),
	('SELECT id, c FROM fc WHERE c <> 3'),
	('SELECT id, c FROM fc WHERE c <> 7'),
	('SELECT id, c FROM fc WHERE c BETWEEN 4 AND 6'),
	('SELECT id, c FROM fc WHERE c BETWEEN 6 AND 4'),
	('SELECT id FROM fc WHERE id > 2500 AND neg < -100000 AND big8 >= 5000035000')
) v(q);

-- Aggregates pushed into the scan against the heap twin: a block every row
-- of which passes is answered without reading its rows (Blocks Answered
-- from Headers), others on codes.
RESET quickstep.enable_agg_pushdown;
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
CREATE FUNCTION agg_cmp(agg text, qual text) RETURNS text LANGUAGE plpgsql AS $f$
DECLARE
	r_col	text;
	r_heap	text;
BEGIN
	EXECUTE format('SELECT (%s)::text FROM fc WHERE %s', agg, qual) INTO r_col;
	EXECUTE format('SELECT (%s)::text FROM fh WHERE %s', agg, qual) INTO r_heap;
	IF r_col IS DISTINCT FROM r_heap THEN
		RETURN 'DIFFERENT: ' || coalesce(r_col, 'NULL') || ' column, ' || coalesce(r_heap, 'NULL') || ' heap';
	END IF;
	RETURN r_col;
END
$f$;
SELECT a, q, agg_cmp(a, q) FROM (VALUES
	('count(*)', 'c >= 3'),
	('count(*)', 'c BETWEEN 3 AND 7'),
	('count(*)', 'c > 3'),
	('count(c), min(c), max(c)', 'c >= 0'),
	('count(*), min(neg), max(big8)', 'c <= 7 AND one >= 0'),
	('count(*)', 'id >= 1500 AND id < 4321'),
	('count(*), sum(neg)', 'neg < -120000'),
	('count(*)', 'hi4 > 2147482000 AND c <> 5')
) v(a, q);
SELECT explain_lines('SELECT count(*) FROM fc WHERE c >= 3');

-- Integer aggregates without GROUP BY are folded a column at a time from
-- FOR and plain stripes; a block whose column is LZ4 goes a row at a time
-- (each chunk decides anew), delta rows too.
CREATE TABLE fm (x int, y int8, z int2) USING quickstep_column
	WITH (quickstep.rows_per_block = 1000, quickstep.encoding_x = 'for',
		  quickstep.encoding_y = 'for', quickstep.encoding_z = 'plain');
CREATE TABLE fmh (x int, y int8, z int2);
INSERT INTO fmh SELECT i * 7 % 1000 - 500, (i * 7919 % 2000)::int8 * 3000000000, (i % 300 - 150)::int2
	FROM generate_series(1, 2000) i;
INSERT INTO fm SELECT * FROM fmh;
ALTER TABLE fm SET (quickstep.encoding_x = 'lz4', quickstep.encoding_y = 'lz4',
					quickstep.encoding_z = 'dict');
INSERT INTO fmh SELECT i * 11 % 5000 - 9000, -i::int8 * 7, CASE WHEN i % 9 = 0 THEN NULL ELSE (i % 50)::int2 END
	FROM generate_series(1, 2000) i;
INSERT INTO fm SELECT * FROM fmh OFFSET 2000;
SELECT DISTINCT column_name, encoding FROM quickstep.blocks('fm') ORDER BY 1, 2;
SELECT (SELECT row(count(*), count(x), sum(x), avg(x), min(x), max(x), sum(y), min(y), max(y),
				   count(z), sum(z), min(z), max(z))::text FROM fm) AS col,
	   (SELECT row(count(*), count(x), sum(x), avg(x), min(x), max(x), sum(y), min(y), max(y),
				   count(z), sum(z), min(z), max(z))::text FROM fmh) AS heap;
SELECT explain_lines('SELECT sum(x), min(y) FROM fm');

-- A table sorted on id (CREATE TABLE AS sorts each block): count(*) of a
-- range is the length of each block's run.
CREATE TABLE fs USING quickstep_column
	WITH (quickstep.rows_per_block = 1000, quickstep.sort_key = 'id')
	AS SELECT * FROM fh ORDER BY id DESC;
SELECT count(*) FROM fs WHERE id >= 1500 AND id < 4321;
SELECT count(*) FROM fs WHERE id > 5999;
SELECT count(*) FROM fs WHERE id < 1;
SELECT count(*), min(id), max(id) FROM fs WHERE id >= 1500 AND id < 4321;
SELECT explain_lines('SELECT count(*) FROM fs WHERE id >= 1500 AND id < 4321');

-- Rows deleted in main: the delete map is read for every row again.
BEGIN;
DELETE FROM fc WHERE id % 100 = 1;
DELETE FROM fh WHERE id % 100 = 1;
DELETE FROM fs WHERE id % 100 = 1;
SELECT agg_cmp('count(*)', 'c >= 3');
SELECT count(*) FROM fs WHERE id >= 1500 AND id < 4321;
SELECT q, cmp(q) FROM (VALUES
	('SELECT id, neg FROM fc WHERE neg < -120000'),
	('SELECT id, c FROM fc WHERE c >= 3')
) v(q);
ROLLBACK;
SELECT agg_cmp('count(*)', 'c >= 3');
SELECT quickstep.check_table('fc'), quickstep.check_table('fs');

DROP SCHEMA column_for_codes CASCADE;
