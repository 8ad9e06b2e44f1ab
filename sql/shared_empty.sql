--
-- Shared scans, empty deliveries (src/shared/README.md, *Empty
-- deliveries*): a chunk scanned for a member that has no row there is
-- recorded in the member's step (its counts), not sent through a queue.
-- Many cursors of one session, each wanting rows of one or two chunks
-- only, read in turns: most chunks are empty for most members.  Each must
-- get heap's rows and count heap's seq_tup_read (a chunk whose empty
-- delivery were lost would leave its member waiting -- the statement
-- times out --, one delivered twice would count its records twice).
--
CREATE TABLE qe_heap (id int, a int, pad text);
INSERT INTO qe_heap
SELECT g, g % 97, repeat('q', 120) FROM generate_series(1, 40000) g;
CREATE TABLE qe_nsm (LIKE qe_heap) USING quickstep_nsm;
CREATE TABLE qe_pax (LIKE qe_heap) USING quickstep_pax;
CREATE TABLE qe_hpl (LIKE qe_heap) USING quickstep_hpl;
INSERT INTO qe_nsm SELECT * FROM qe_heap;
INSERT INTO qe_pax SELECT * FROM qe_heap;
INSERT INTO qe_hpl SELECT * FROM qe_heap;
DELETE FROM qe_heap WHERE id % 500 = 7;
DELETE FROM qe_nsm WHERE id % 500 = 7;
DELETE FROM qe_pax WHERE id % 500 = 7;
DELETE FROM qe_hpl WHERE id % 500 = 7;
ANALYZE qe_heap, qe_nsm, qe_pax, qe_hpl;
SET enable_indexscan = off;
SET enable_bitmapscan = off;
SET max_parallel_workers_per_gather = 0;
SET statement_timeout = '120s';

-- n cursors, the k-th over ids k*step .. k*step+30 (one chunk, or two at a
-- chunk's edge), plus one over no id and one over every 97th row; all open
-- at once and read in turns, one row each per round.  Count and checksum
-- per cursor.
CREATE FUNCTION qe_many(tab text, n int, step int)
RETURNS TABLE (k int, cnt bigint, total bigint)
LANGUAGE plpgsql AS $$
DECLARE
	c refcursor;
	r record;
	more boolean[] := '{}';
	cnts bigint[] := '{}';
	sums bigint[] := '{}';
	left_ int := n + 2;
	pred text;
BEGIN
	FOR i IN 1 .. n + 2 LOOP
		pred := CASE WHEN i <= n THEN format('id BETWEEN %s AND %s', i * step, i * step + 30)
					 WHEN i = n + 1 THEN 'id < 0'
					 ELSE 'a = 5' END;
		c := 'qe_c' || i;
		OPEN c NO SCROLL FOR EXECUTE format('SELECT id, a FROM %I WHERE %s', tab, pred);
		more := more || true;
		cnts := cnts || 0::bigint;
		sums := sums || 0::bigint;
	END LOOP;
	WHILE left_ > 0 LOOP
		FOR i IN 1 .. n + 2 LOOP
			CONTINUE WHEN NOT more[i];
			c := 'qe_c' || i;
			FETCH c INTO r;
			IF FOUND THEN
				cnts[i] := cnts[i] + 1;
				sums[i] := sums[i] + r.id + r.a;
			ELSE
				more[i] := false;
				left_ := left_ - 1;
				CLOSE c;
			END IF;
		END LOOP;
	END LOOP;
	FOR i IN 1 .. n + 2 LOOP
		k := i; cnt := cnts[i]; total := sums[i];
		RETURN NEXT;
	END LOOP;
END
$$;

CREATE TEMP TABLE qe_heap_res AS SELECT * FROM qe_many('qe_heap', 40, 997);
SELECT count(*) AS cursors, sum(cnt) AS rows, sum(total) AS total FROM qe_heap_res;

SET quickstep.enable_shared_scan = on;
CREATE TEMP TABLE stats0 AS SELECT * FROM quickstep.shared_scan_backend_stats();
-- each layout: the cursors whose rows differ from heap's (none), and
-- whether it counted the records heap counted (the xact's tuples_returned)
CREATE FUNCTION qe_check(tab text)
RETURNS TABLE (tab_ text, differ int[], same_count boolean)
LANGUAGE plpgsql AS $$
DECLARE
	heap_read bigint;
	tab_read bigint;
BEGIN
	heap_read := pg_stat_get_xact_tuples_returned('qe_heap'::regclass);
	tab_read := pg_stat_get_xact_tuples_returned(tab::regclass);
	PERFORM * FROM qe_many('qe_heap', 40, 997);
	SELECT array_agg(r.k ORDER BY r.k) FILTER (WHERE (r.cnt, r.total) IS DISTINCT FROM (h.cnt, h.total))
	  INTO differ
	  FROM qe_many(tab, 40, 997) r JOIN qe_heap_res h USING (k);
	heap_read := pg_stat_get_xact_tuples_returned('qe_heap'::regclass) - heap_read;
	tab_read := pg_stat_get_xact_tuples_returned(tab::regclass) - tab_read;
	tab_ := tab;
	same_count := heap_read = tab_read;
	IF NOT same_count THEN
		RAISE NOTICE '%: % records counted, heap %', tab, tab_read, heap_read;
	END IF;
	RETURN NEXT;
END
$$;
SELECT * FROM qe_check('qe_nsm');
SELECT * FROM qe_check('qe_pax');
SELECT * FROM qe_check('qe_hpl');
-- chunks were scanned for other members and received (most of them
-- empty for their recipient: each cursor has rows in one or two of them)
SELECT s.chunks_served - b.chunks_served > 100 AS served,
       s.chunks_received - b.chunks_received > 100 AS received
  FROM quickstep.shared_scan_backend_stats() s, stats0 b;

RESET quickstep.enable_shared_scan;
RESET statement_timeout;
DROP FUNCTION qe_check(text);
DROP FUNCTION qe_many(text, int, int);
DROP TABLE stats0, qe_heap_res;
DROP TABLE qe_heap, qe_nsm, qe_pax, qe_hpl;
