--
-- Shared scans, the query index (src/shared/qindex.c, paper 001): many
-- members of one circle with equality quals on the same column (different
-- constants, the same constant, a NULL constant, cross-type constants, IN
-- lists with repeats and NULLs, an empty array, Params) are served by
-- scanners that look each record's value up once in a hash of their
-- constants.  Every member must get exactly heap's rows.
--
CREATE TABLE qi_heap (id int, a int, b int8, s int2, d date, c text, pad text);
INSERT INTO qi_heap
SELECT g,
       CASE WHEN g % 53 = 0 THEN NULL ELSE g % 40 END,
       CASE WHEN g % 59 = 0 THEN NULL ELSE g % 30 END,
       (g % 25)::int2,
       date '2020-01-01' + (g % 20),
       CASE g % 3 WHEN 0 THEN 'abc' WHEN 1 THEN 'ABC' ELSE 'xyz' END,
       repeat('p', 100)
  FROM generate_series(1, 40000) g;
CREATE TABLE qi_nsm (LIKE qi_heap) USING quickstep_nsm;
CREATE TABLE qi_pax (LIKE qi_heap) USING quickstep_pax;
CREATE TABLE qi_hpl (LIKE qi_heap) USING quickstep_hpl;
INSERT INTO qi_nsm SELECT * FROM qi_heap;
INSERT INTO qi_pax SELECT * FROM qi_heap;
INSERT INTO qi_hpl SELECT * FROM qi_heap;
-- dead rows, so that visibility is judged record by record on some pages
DELETE FROM qi_heap WHERE id % 700 = 3;
DELETE FROM qi_nsm WHERE id % 700 = 3;
DELETE FROM qi_pax WHERE id % 700 = 3;
DELETE FROM qi_hpl WHERE id % 700 = 3;
ANALYZE qi_heap, qi_nsm, qi_pax, qi_hpl;
SET enable_indexscan = off;
SET enable_bitmapscan = off;
SET max_parallel_workers_per_gather = 0;

-- One cursor per predicate, all open at once and read in turns, one row
-- each per round: each chunk a cursor takes is scanned for every other
-- cursor that has not had it.  Count and checksum of each cursor's rows.
CREATE FUNCTION qi_many(tab text, preds text[])
RETURNS TABLE (i int, n bigint, s numeric)
LANGUAGE plpgsql AS $$
DECLARE
	c refcursor;
	r record;
	names text[] := '{}';
	more boolean[] := '{}';
	cnt bigint[] := '{}';
	sums numeric[] := '{}';
	left_ int;
BEGIN
	FOR k IN 1 .. array_length(preds, 1) LOOP
		c := 'qi_c' || k;
		OPEN c NO SCROLL FOR EXECUTE
			format('SELECT id, b, d FROM %I WHERE %s', tab, preds[k]);
		names := names || c::text;
		more := more || true;
		cnt := cnt || 0::bigint;
		sums := sums || 0::numeric;
	END LOOP;
	left_ := array_length(preds, 1);
	WHILE left_ > 0 LOOP
		FOR k IN 1 .. array_length(preds, 1) LOOP
			CONTINUE WHEN NOT more[k];
			c := names[k];
			FETCH c INTO r;
			IF FOUND THEN
				cnt[k] := cnt[k] + 1;
				sums[k] := sums[k] + r.id + coalesce(r.b, 7) + (r.d - date '2020-01-01');
			ELSE
				more[k] := false;
				left_ := left_ - 1;
				CLOSE c;
			END IF;
		END LOOP;
	END LOOP;
	FOR k IN 1 .. array_length(preds, 1) LOOP
		i := k; n := cnt[k]; s := sums[k];
		RETURN NEXT;
	END LOOP;
END
$$;

CREATE TEMP TABLE qi_preds (i serial, pred text);
INSERT INTO qi_preds (pred) VALUES
	('a = 5'),
	('a = 7'),
	('a = 5'),							-- the same constant twice
	('a = 5::int8'),					-- int4 column, int8 constant
	('a = 300000000000::int8'),			-- beyond int4: nothing
	('a = NULL::int'),					-- nothing
	('a IN (7, 7, 11, NULL)'),			-- repeats and a NULL element
	('a = ANY (''{}''::int[])'),			-- empty: nothing
	('a IS NULL'),
	('a = 9 AND b = 9::int4'),			-- int8 column, int4 constant
	('b = 3 AND a >= 0'),
	('b = 3::int2'),
	('s = 4'),							-- int2 column, int4 constant
	('s = 4::int8 AND a < 20'),
	('a = 12 AND c = ''abc'''),			-- text: rechecked by the member
	('c = ''ABC'' AND a = 13'),
	('d = date ''2020-01-05'' AND a = 4'),
	('a = 4 AND d = date ''2020-01-06'''),
	('d = date ''2020-01-05'''),
	('a = -1'),
	('a >= 38'),						-- ranges: segments of the column
	('id % 1000 = 1'),					-- not native: the member's own
	('a < 3'),
	('a <= 3'),
	('a > 36'),
	('a BETWEEN 10 AND 12'),			-- one range indexed, one run
	('a >= 0 AND a = 7'),				-- the equality indexed
	('a < -2147483649::int8'),			-- below int4: nothing
	('a > 2147483648::int8'),			-- above int4: nothing
	('a >= -2147483649::int8 AND a < 2'),
	('a < NULL::int'),					-- nothing
	('b > 27::int2'),					-- int8 column, int2 constant
	('b <= 1'),
	('s >= 23'),
	('s < 1::int8'),
	('d < date ''2020-01-02'''),
	('d >= date ''2020-01-19''');

CREATE TEMP TABLE qi_heap_res AS
	SELECT * FROM qi_many('qi_heap', (SELECT array_agg(pred ORDER BY i) FROM qi_preds));
SELECT p.i, p.pred, r.n, r.s FROM qi_heap_res r JOIN qi_preds p USING (i) ORDER BY i;

SET quickstep.enable_shared_scan = on;
CREATE TEMP TABLE stats0 AS SELECT * FROM quickstep.shared_scan_backend_stats();
-- each layout: the predicates whose rows differ from heap's (none)
SELECT tab, array_agg(r.i ORDER BY r.i) FILTER (WHERE (r.n, r.s) IS DISTINCT FROM (h.n, h.s)) AS differ
  FROM unnest(ARRAY['qi_nsm', 'qi_pax', 'qi_hpl']) AS tab,
       qi_many(tab, (SELECT array_agg(pred ORDER BY i) FROM qi_preds)) r
       JOIN qi_heap_res h USING (i)
 GROUP BY tab ORDER BY tab;
-- the chunks were scanned for several members at once
SELECT s.deliveries - b.deliveries > 3 * (s.chunks_served - b.chunks_served) AS many_per_chunk,
       s.chunks_received > b.chunks_received AS received
  FROM quickstep.shared_scan_backend_stats() s, stats0 b;

-- Params: generic plans of one statement with each member's own value
SET plan_cache_mode = force_generic_plan;
DO $$
DECLARE
	t text;
BEGIN
	FOREACH t IN ARRAY ARRAY['qi_heap', 'qi_nsm', 'qi_pax', 'qi_hpl'] LOOP
		EXECUTE format($f$
CREATE FUNCTION %I(vals int8[]) RETURNS TABLE (i int, n bigint, s numeric)
LANGUAGE plpgsql AS $b$
DECLARE
	c refcursor;
	v int8;
	r record;
	names text[] := '{}';
	more boolean := true;
BEGIN
	FOR k IN 1 .. array_length(vals, 1) LOOP
		c := %L || k;
		v := vals[k];
		OPEN c NO SCROLL FOR SELECT id, b FROM %I WHERE a = v AND b >= 0;
		names := names || c::text;
	END LOOP;
	n := 0; s := 0;
	WHILE more LOOP
		more := false;
		FOR k IN 1 .. array_length(vals, 1) LOOP
			c := names[k];
			FETCH c INTO r;
			IF FOUND THEN
				more := true;
				n := n + 1;
				s := s + k * (r.id + r.b);
			END IF;
		END LOOP;
	END LOOP;
	i := array_length(vals, 1);
	RETURN NEXT;
END
$b$;$f$, t || '_params', t || '_c', t);
	END LOOP;
END
$$;
SELECT 'heap' AS tab, * FROM qi_heap_params('{5,6,5,NULL,7,3000000000,8,9}')
UNION ALL SELECT 'nsm', * FROM qi_nsm_params('{5,6,5,NULL,7,3000000000,8,9}')
UNION ALL SELECT 'pax', * FROM qi_pax_params('{5,6,5,NULL,7,3000000000,8,9}')
UNION ALL SELECT 'hpl', * FROM qi_hpl_params('{5,6,5,NULL,7,3000000000,8,9}');
RESET plan_cache_mode;

RESET quickstep.enable_shared_scan;
DROP TABLE stats0, qi_preds, qi_heap_res;
DROP FUNCTION qi_many(text, text[]);
DROP FUNCTION qi_heap_params(int8[]), qi_nsm_params(int8[]), qi_pax_params(int8[]), qi_hpl_params(int8[]);
DROP TABLE qi_heap, qi_nsm, qi_pax, qi_hpl;
