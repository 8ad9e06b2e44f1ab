--
-- Shared scans, range quals in the query index (src/shared/qindex.c,
-- range_of and build_segments) at the edges of their types: int8 quals at
-- -2^63 and 2^63-1, int4 ones at -2^31 and 2^31-1 (and int8 constants
-- beyond them), timestamp and date 'infinity' and '-infinity' (the images
-- PG_INT64_MAX/MIN and PG_INT32_MAX/MIN), empty, symmetric and NULL
-- ranges, cross-type and numeric constants, and overlapping, adjacent and
-- identical intervals of many members at once.  The rows hold each edge
-- value and its neighbours, so an interval whose arithmetic overflowed
-- (b + 1 past 2^63-1, b - 1 past -2^63) or whose end were open where it
-- is closed (or the reverse) gives a member rows heap does not: every
-- member must get exactly heap's rows.
--
CREATE TABLE qr_heap (id int, i4 int, i8 int8, ts timestamp, d date, pad text);
INSERT INTO qr_heap
SELECT g,
       CASE g % 50 WHEN 0 THEN -2147483648 WHEN 1 THEN -2147483647
                   WHEN 2 THEN 2147483646 WHEN 3 THEN 2147483647
                   WHEN 4 THEN NULL ELSE g % 41 - 20 END,
       CASE g % 50 WHEN 0 THEN -9223372036854775808 WHEN 1 THEN -9223372036854775807
                   WHEN 2 THEN 9223372036854775806 WHEN 3 THEN 9223372036854775807
                   WHEN 4 THEN NULL ELSE g % 43 - 21 END,
       CASE g % 50 WHEN 0 THEN timestamp '-infinity' WHEN 1 THEN timestamp '4713-01-01 00:00 BC'
                   WHEN 2 THEN timestamp '294276-12-31 23:59:59.999999'
                   WHEN 3 THEN timestamp 'infinity' WHEN 4 THEN NULL
                   ELSE timestamp '2020-01-01' + (g % 37) * interval '1 day' END,
       CASE g % 50 WHEN 0 THEN date '-infinity' WHEN 1 THEN date '4713-01-01 BC'
                   WHEN 2 THEN date '5874897-12-31' WHEN 3 THEN date 'infinity'
                   WHEN 4 THEN NULL ELSE date '2020-01-01' + g % 31 END,
       repeat('r', 100)
  FROM generate_series(1, 40000) g;
CREATE TABLE qr_nsm (LIKE qr_heap) USING quickstep_nsm;
CREATE TABLE qr_pax (LIKE qr_heap) USING quickstep_pax;
CREATE TABLE qr_hpl (LIKE qr_heap) USING quickstep_hpl;
INSERT INTO qr_nsm SELECT * FROM qr_heap;
INSERT INTO qr_pax SELECT * FROM qr_heap;
INSERT INTO qr_hpl SELECT * FROM qr_heap;
ANALYZE qr_heap, qr_nsm, qr_pax, qr_hpl;
SET enable_indexscan = off;
SET enable_bitmapscan = off;
SET max_parallel_workers_per_gather = 0;
SET statement_timeout = '120s';

-- One cursor per predicate, all open at once and read in turns, one row
-- each per round: each chunk a cursor takes is scanned for every other
-- cursor that has not had it, their range quals on a column indexed
-- together.  Count and checksum of each cursor's rows.
CREATE FUNCTION qr_many(tab text, preds text[])
RETURNS TABLE (i int, n bigint, s numeric)
LANGUAGE plpgsql AS $$
DECLARE
	c refcursor;
	r record;
	more boolean[] := '{}';
	cnt bigint[] := '{}';
	sums numeric[] := '{}';
	left_ int := array_length(preds, 1);
BEGIN
	FOR k IN 1 .. left_ LOOP
		c := 'qr_c' || k;
		OPEN c NO SCROLL FOR EXECUTE
			format('SELECT id, i8 FROM %I WHERE %s', tab, preds[k]);
		more := more || true;
		cnt := cnt || 0::bigint;
		sums := sums || 0::numeric;
	END LOOP;
	WHILE left_ > 0 LOOP
		FOR k IN 1 .. array_length(preds, 1) LOOP
			CONTINUE WHEN NOT more[k];
			c := 'qr_c' || k;
			FETCH c INTO r;
			IF FOUND THEN
				cnt[k] := cnt[k] + 1;
				sums[k] := sums[k] + r.id + coalesce(r.i8, 0) % 1000;
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

CREATE TEMP TABLE qr_preds (i serial, pred text);
-- A cursor joins at its first FETCH.  One whose predicate passes nothing
-- reads the whole table then, scanning each chunk for the members that
-- have not had it, its own range indexed with theirs (a column is indexed
-- for two recipients or more): so each such predicate follows one on its
-- column that passes few rows (a member that has read one chunk only; one
-- wanting most rows would be stalled by its full queues, and not served).
INSERT INTO qr_preds (pred) VALUES
	-- int8 at -2^63 and 2^63-1 (the parser types -9223372036854775808 as
	-- int8 once negated: the same constant as the cast)
	('i8 <= ''-9223372036854775808''::int8'),
	('i8 < ''-9223372036854775808''::int8'),	-- nothing (b - 1 would wrap)
	('i8 > ''-9223372036854775808''::int8'),
	('i8 < -9223372036854775808'),		-- nothing
	('i8 >= ''-9223372036854775808''::int8'),	-- every non-NULL
	('i8 <= -9223372036854775808'),
	('i8 < -9223372036854775807'),
	('i8 >= -9223372036854775807'),
	('i8 <= 9223372036854775807'),		-- every non-NULL
	('i8 >= 9223372036854775807'),
	('i8 > 9223372036854775807'),		-- nothing (b + 1 would wrap)
	('i8 < 9223372036854775807'),
	('i8 > 9223372036854775806'),
	('i8 <= 9223372036854775806'),
	('i8 BETWEEN ''-9223372036854775808''::int8 AND -9223372036854775807'),
	('i8 BETWEEN 9223372036854775806 AND 9223372036854775807'),
	('i8 < 3'),							-- int8 column, int4 constant
	('i8 >= 3::int2'),
	-- int4 at -2^31 and 2^31-1, and int8 constants beyond them
	('i4 <= ''-2147483648''::int4'),
	('i4 < ''-2147483648''::int4'),		-- nothing
	('i4 >= ''2147483647''::int4'),
	('i4 > ''2147483647''::int4'),		-- nothing
	('i4 <= -2147483648::int8'),			-- int8 constant at int4's edge
	('i4 < -2147483648::int8'),			-- nothing
	('i4 > -2147483648'),
	('i4 < 2147483647'),
	('i4 >= -2147483649'),				-- int8 constant below int4: every non-NULL
	('i4 >= 2147483647::int8'),
	('i4 < -2147483649'),				-- nothing
	('i4 <= 2147483648'),				-- int8 constant above int4: every non-NULL
	('i4 < -2147483647::int8'),
	('i4 > 2147483648'),				-- nothing
	('i4 < 2.5'),						-- numeric: the member's own
	('i4 > -2.5'),
	-- empty, symmetric, NULL
	('i4 BETWEEN SYMMETRIC 12 AND 10'),
	('i4 BETWEEN 12 AND 10'),			-- nothing
	('i4 >= 10 AND i4 <= 10'),
	('i4 > 10 AND i4 < 11'),			-- nothing: an open gap
	('i4 IS NULL'),
	('i4 < NULL::int'),					-- nothing
	('i4 > 18'),
	('i4 >= NULL::int8'),				-- nothing
	('i8 > NULL::int8 OR i8 IS NULL'),
	-- overlapping, adjacent and identical intervals
	('i4 BETWEEN 0 AND 10'),
	('i4 BETWEEN 0 AND 10'),			-- identical
	('i4 BETWEEN 11 AND 20'),			-- adjacent
	('i4 BETWEEN 5 AND 15'),			-- overlapping both
	('i4 < 0'),
	('i4 >= 0'),						-- adjacent halves
	('i4 <= 0'),
	('i4 > 0'),
	('i4 >= -20 AND i4 <= -20'),
	('i4 > -21 AND i4 < -19'),
	-- timestamp and date infinities
	('ts <= ''-infinity'''),
	('ts < ''-infinity'''),				-- nothing
	('ts > ''-infinity'''),
	('ts >= ''-infinity'''),				-- every non-NULL
	('ts <= ''infinity'''),				-- every non-NULL
	('ts >= ''infinity'''),
	('ts > ''infinity'''),				-- nothing
	('ts < ''infinity'''),
	('ts > ''294276-12-31 23:59:59.999999'''),
	('ts < ''4713-01-01 00:00 BC'''),
	('ts BETWEEN ''2020-01-05'' AND ''2020-01-09'''),
	('d <= ''-infinity'''),
	('d < ''-infinity'''),				-- nothing
	('d > ''-infinity'''),
	('d < ''infinity'''),
	('d >= ''infinity'''),
	('d > ''infinity'''),				-- nothing
	('d <= ''infinity'''),				-- every non-NULL
	('d >= ''5874897-12-31'''),
	('d < ''4713-01-01 BC'''),
	('d < timestamp ''infinity'''),		-- date column, timestamp constant
	('d BETWEEN ''2020-01-10'' AND ''2020-01-12''');

CREATE TEMP TABLE qr_heap_res AS
	SELECT * FROM qr_many('qr_heap', (SELECT array_agg(pred ORDER BY i) FROM qr_preds));
SELECT p.i, p.pred, r.n, r.s FROM qr_heap_res r JOIN qr_preds p USING (i) ORDER BY i;

SET quickstep.enable_shared_scan = on;
CREATE TEMP TABLE stats0 AS SELECT * FROM quickstep.shared_scan_backend_stats();
-- each layout: the predicates whose rows differ from heap's (none)
SELECT tab, array_agg(r.i ORDER BY r.i) FILTER (WHERE (r.n, r.s) IS DISTINCT FROM (h.n, h.s)) AS differ
  FROM unnest(ARRAY['qr_nsm', 'qr_pax', 'qr_hpl']) AS tab,
       qr_many(tab, (SELECT array_agg(pred ORDER BY i) FROM qr_preds)) r
       JOIN qr_heap_res h USING (i)
 GROUP BY tab ORDER BY tab;
-- the chunks were scanned for several members at once
SELECT s.deliveries - b.deliveries > s.chunks_served - b.chunks_served AS several_per_chunk,
       s.chunks_received > b.chunks_received AS received
  FROM quickstep.shared_scan_backend_stats() s, stats0 b;

RESET quickstep.enable_shared_scan;
RESET statement_timeout;
DROP TABLE stats0, qr_preds, qr_heap_res;
DROP FUNCTION qr_many(text, text[]);
DROP TABLE qr_heap, qr_nsm, qr_pax, qr_hpl;
