-- QuickstepScan on a quickstep_column table with no pushed qual: it reads
-- only the columns the query needs, and the plain sequential scan, which
-- decodes every column, is costed so (src/scan/colcost.c).  Rows are
-- compared with heap's; row tables keep their plans.
CREATE SCHEMA column_project;
SET search_path = column_project, public;
SET max_parallel_workers_per_gather = 0;
SET quickstep.enable_agg_pushdown = off;

CREATE TABLE h (c1 int, c2 int, c3 int, c4 int, c5 int, c6 int, c7 int, c8 int, c9 int, c10 int);
INSERT INTO h SELECT i, i % 7, i % 11, i % 13, i, i, i, i, i, i
	FROM generate_series(1, 20000) i;
CREATE TABLE c (LIKE h) USING quickstep_column;
INSERT INTO c SELECT * FROM h;
CREATE TABLE n (LIKE h) USING quickstep_nsm;
INSERT INTO n SELECT * FROM h;
-- main rows deleted and updated, and rows in the delta
DELETE FROM h WHERE c1 % 100 = 0;
DELETE FROM c WHERE c1 % 100 = 0;
UPDATE h SET c2 = -1 WHERE c1 % 97 = 0;
UPDATE c SET c2 = -1 WHERE c1 % 97 = 0;
INSERT INTO h VALUES (30000, NULL, 1, 2, 3, 4, 5, 6, 7, 8);
INSERT INTO c VALUES (30000, NULL, 1, 2, 3, 4, 5, 6, 7, 8);
VACUUM ANALYZE h;
VACUUM ANALYZE c;
VACUUM ANALYZE n;

-- few columns: QuickstepScan, with or without a pushed qual
EXPLAIN (COSTS OFF) SELECT c1 FROM c;
EXPLAIN (COSTS OFF) SELECT c1 FROM c WHERE c1 >= 1;
EXPLAIN (COSTS OFF) SELECT c1, c2 FROM c WHERE c3 + 1 > 0;
-- every column: the plain scan, which decodes no more than QuickstepScan
-- would and hands out whole rows for less, with no qual and with one that
-- QuickstepScan would answer on each block's min/max (src/scan/colcost.c)
EXPLAIN (COSTS OFF) SELECT * FROM c;
EXPLAIN (COSTS OFF) SELECT * FROM c WHERE c1 >= 1;
-- a row table with no qual keeps its sequential scan
EXPLAIN (COSTS OFF) SELECT c1 FROM n;

-- the same rows as heap's, and the scan of c the plan takes (the scan
-- node's name, so that a plan that stops taking QuickstepScan shows)
CREATE FUNCTION same(q text) RETURNS text LANGUAGE plpgsql AS $f$
DECLARE
	agg		text := 'SELECT count(*) || '' rows/'' || coalesce(sum(hashtext(x::text)), 0) FROM (%s) x';
	scan	text;
	node	text;
	line	text;
	rc		text;
	rh		text;
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || format(q, 'c') LOOP
		node := substring(line from '(QuickstepScan|[A-Z][a-z]+(?: [A-Z][a-z]+)* Scan)\)? (?:using [^ ]+ )?on c\M');
		IF node IS NOT NULL THEN
			scan := coalesce(scan || ' + ', '') || node;
		END IF;
	END LOOP;
	EXECUTE format(agg, format(q, 'c')) INTO rc;
	EXECUTE format(agg, format(q, 'h')) INTO rh;
	RETURN CASE WHEN rc = rh THEN 'same' ELSE 'DIFFERENT' END ||
		', ' || coalesce(scan, 'no scan of c') || ': ' ||
		CASE WHEN rc = rh THEN rc ELSE rc || ' vs ' || rh END;
END $f$;
SELECT same('SELECT c1 FROM %s');
SELECT same('SELECT c2 FROM %s');
SELECT same('SELECT c1, c2 FROM %s WHERE c1 >= 1');
SELECT same('SELECT c1, c2 FROM %s WHERE c3 + 1 > 0');
SELECT same('SELECT c4 FROM %s WHERE ctid IS NOT NULL');
SELECT same('SELECT * FROM %s WHERE c1 >= 1');
SELECT same('SELECT count(*) FROM %s');

-- The plain scan's charge must not have let its uncharged cost reject the
-- index paths costed between the two: a query QuickstepScan cannot run
-- (xmin) takes the index, not the plain scan that decodes every column
-- (c1 < 10200: the Seq Scan costs about 334 uncharged, 472 charged, the
-- index 355, 452 charged for the values it fetches; PG 15).
CREATE INDEX ON h (c1);
CREATE INDEX ON c (c1);
ANALYZE h;
ANALYZE c;
EXPLAIN (COSTS OFF) SELECT xmin, c2 FROM c WHERE c1 < 10200;
SELECT same('SELECT c2 FROM %s WHERE c1 < 10200 AND xmin::text <> '''' ');
-- and in parallel: the partial index path the uncharged Parallel Seq Scan
-- rejected is offered again, and Gather is built over it (c1 < 7000: the
-- Parallel Seq Scan costs about 189 uncharged, 247 charged, the index 207)
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET min_parallel_index_scan_size = 0;
EXPLAIN (COSTS OFF) SELECT xmin, c2 FROM c WHERE c1 < 7000;
SET max_parallel_workers_per_gather = 0;
-- and a TID scan (ten random fetches made dear) costed between the two
SET random_page_cost = 40;
EXPLAIN (COSTS OFF) SELECT xmin, c2 FROM c
	WHERE ctid = ANY ('{"(0,1)","(0,2)","(0,3)","(0,4)","(0,5)","(1,1)","(1,2)","(1,3)","(1,4)","(1,5)"}');
RESET random_page_cost;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET min_parallel_index_scan_size;
DROP INDEX h_c1_idx, c_c1_idx;

-- an UPDATE with no WHERE through the projecting scan
EXPLAIN (COSTS OFF) UPDATE c SET c5 = c5 + 1;
UPDATE c SET c5 = c5 + 1;
UPDATE h SET c5 = c5 + 1;
SELECT same('SELECT c1, c5 FROM %s');

-- WHERE CURRENT OF: only a TID scan runs it (no QuickstepScan offered; on
-- PG 18 a small table's QuickstepScan was cheaper than the TID scan and the
-- UPDATE failed: "WHERE CURRENT OF is not supported for this table type")
CREATE TABLE cs (a int, b int) USING quickstep_column;
CREATE TABLE hs (a int, b int) USING heap;
INSERT INTO cs VALUES (1, 10), (2, 20), (3, 30);
INSERT INTO hs SELECT * FROM cs;
VACUUM ANALYZE cs, hs;
BEGIN;
DECLARE cc CURSOR FOR SELECT a FROM cs WHERE a = 2 FOR UPDATE;
FETCH cc;
EXPLAIN (COSTS OFF) UPDATE cs SET b = -1 WHERE CURRENT OF cc;
UPDATE cs SET b = -1 WHERE CURRENT OF cc;
FETCH cc;
DECLARE cd CURSOR FOR SELECT a FROM cs WHERE a = 3 FOR UPDATE;
FETCH cd;
DELETE FROM cs WHERE CURRENT OF cd;
COMMIT;
BEGIN;
DECLARE hc CURSOR FOR SELECT a FROM hs WHERE a = 2 FOR UPDATE;
FETCH hc;
UPDATE hs SET b = -1 WHERE CURRENT OF hc;
FETCH hc;
DECLARE hd CURSOR FOR SELECT a FROM hs WHERE a = 3 FOR UPDATE;
FETCH hd;
DELETE FROM hs WHERE CURRENT OF hd;
COMMIT;
SELECT * FROM cs ORDER BY a;
SELECT * FROM hs ORDER BY a;

-- A LATERAL subquery's output column evaluated at the scan (a
-- PlaceHolderVar: the relation has lateral references): no QuickstepScan,
-- whose unparameterized path lost them (x came out NULL)
CREATE TABLE lo (a int);
INSERT INTO lo VALUES (1), (2), (3), (NULL);
ANALYZE lo;
SELECT same('SELECT lo.a, s.x, count(*) FROM lo LEFT JOIN LATERAL
	(SELECT lo.a AS x, t.c1 FROM %s t WHERE t.c2 = 3) s ON true GROUP BY 1, 2');
SELECT same('SELECT lo.a, s.x, count(*) FROM lo LEFT JOIN LATERAL
	(SELECT coalesce(lo.a, t.c3) AS x FROM %s t) s ON true GROUP BY 1, 2');
-- without lateral references QuickstepScan still serves a LATERAL join
SELECT same('SELECT lo.a, s.c1 FROM lo, LATERAL
	(SELECT t.c1 FROM %s t WHERE t.c1 = lo.a) s');

-- Index, bitmap and TID paths are charged for the values they fetch of main
-- rows, by the encodings of the table's largest block (colcost.c,
-- charge_fetch): a fetch that reads an LZ4 value costs more than one that
-- reads a code, and fetching delta rows costs what a row table's fetch does
CREATE FUNCTION cost(q text) RETURNS numeric LANGUAGE plpgsql AS $f$
DECLARE
  j json;
BEGIN
  EXECUTE 'EXPLAIN (FORMAT JSON) ' || q INTO j;
  RETURN (j -> 0 -> 'Plan' ->> 'Total Cost')::numeric;
END $f$;
CREATE TABLE fl (id int, code int, txt text) USING quickstep_column;
INSERT INTO fl SELECT i, i % 10, md5(i::text) FROM generate_series(1, 20000) i;
CREATE INDEX ON fl (id);
ANALYZE fl;
SELECT DISTINCT column_name, encoding FROM quickstep.blocks('fl') ORDER BY 1;
EXPLAIN (COSTS OFF) SELECT txt FROM fl WHERE id < 100;
EXPLAIN (COSTS OFF) SELECT code FROM fl WHERE id < 100;
-- (15 + 0.5) against (0.5 + 0.5) cpu_tuple_cost a row fetched
SELECT round(cost('SELECT txt FROM fl WHERE id < 100') -
             cost('SELECT code FROM fl WHERE id < 100'), 1) AS lz4_dearer_by;
-- the same rows in the delta only: charged alike
CREATE TABLE fd (LIKE fl) USING quickstep_column;
SET quickstep.column_delta_rows = 100000;
INSERT INTO fd SELECT * FROM fl;
RESET quickstep.column_delta_rows;
CREATE INDEX ON fd (id);
ANALYZE fd;
SELECT main_rows FROM quickstep.column_table_stats('fd');
SELECT cost('SELECT txt FROM fd WHERE id < 100') =
       cost('SELECT code FROM fd WHERE id < 100') AS delta_alike;

RESET search_path;
DROP SCHEMA column_project CASCADE;
