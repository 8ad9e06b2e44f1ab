--
-- Shared scans (src/shared/README.md), first slice: a QuickstepScan of a
-- row table registers as a member of the table's circle, starts at the
-- circle's position and goes once round.  Every query runs on heap and on
-- each row layout with shared scans on and off and must give the same rows;
-- EXPLAIN shows when a scan may share and why not.
--
CREATE TABLE ss_heap (id int, a int, b int8, c text, d date, f float8);
SELECT setseed(0.25);
INSERT INTO ss_heap
SELECT g,
       CASE WHEN g % 97 = 0 THEN NULL ELSE (random() * 10000)::int END,
       (random() * 1e10)::int8,
       CASE WHEN g % 89 = 0 THEN NULL ELSE md5(g::text) END,
       date '2020-01-01' + (g % 1000),
       random() * 100
  FROM generate_series(1, 20000) g;
CREATE TABLE ss_nsm (LIKE ss_heap) USING quickstep_nsm;
CREATE TABLE ss_pax (LIKE ss_heap) USING quickstep_pax;
CREATE TABLE ss_hpl (LIKE ss_heap) USING quickstep_hpl;
INSERT INTO ss_nsm SELECT * FROM ss_heap;
INSERT INTO ss_pax SELECT * FROM ss_heap;
INSERT INTO ss_hpl SELECT * FROM ss_heap;
-- a few dead rows, so that visibility is decided on some pages
DELETE FROM ss_heap WHERE id % 1000 = 7;
DELETE FROM ss_nsm WHERE id % 1000 = 7;
DELETE FROM ss_pax WHERE id % 1000 = 7;
DELETE FROM ss_hpl WHERE id % 1000 = 7;
ANALYZE ss_heap, ss_nsm, ss_pax, ss_hpl;

SET enable_indexscan = off;
SET enable_bitmapscan = off;
SET max_parallel_workers_per_gather = 0;

-- order-independent checksum of whole rows
CREATE FUNCTION ss_sum(tab text, pred text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	r text;
BEGIN
	EXECUTE format('SELECT count(*) || '':'' || coalesce(sum(hashtext(x::text)::numeric), 0) FROM %I x WHERE %s',
				   tab, pred) INTO r;
	RETURN r;
END
$$;

-- the lines of a plan matching pattern
CREATE FUNCTION ss_explain(q text, pattern text) RETURNS SETOF text
LANGUAGE plpgsql AS $$
DECLARE
	l text;
BEGIN
	FOR l IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
		IF l ~ pattern THEN
			RETURN NEXT btrim(l);
		END IF;
	END LOOP;
END
$$;

-- Every layout, shared on and off, against heap.
CREATE FUNCTION ss_check(tab text, pred text, OUT same boolean, OUT shared text)
LANGUAGE plpgsql AS $$
DECLARE
	h text; s text; u text;
BEGIN
	h := ss_sum('ss_heap', pred);
	SET LOCAL cpu_operator_cost = 1;
	SET LOCAL quickstep.enable_shared_scan = on;
	s := ss_sum(tab, pred);
	SELECT string_agg(l, ', ') INTO shared
	  FROM ss_explain(format('SELECT * FROM %I x WHERE %s', tab, pred), 'Shared Scan') l;
	SET LOCAL quickstep.enable_shared_scan = off;
	u := ss_sum(tab, pred);
	same := (h = s AND h = u);
END
$$;

SELECT tab, pred, (ss_check(tab, pred)).*
  FROM unnest(ARRAY['ss_nsm', 'ss_pax', 'ss_hpl']) AS tab,
       unnest(ARRAY['a < 100', 'a BETWEEN 1000 AND 1200 AND f < 50', 'c IS NULL',
                    'd = date ''2021-06-01''', 'a >= 0 AND f >= 0', 'a < 1 AND a > 1']) AS pred
 ORDER BY 1, 2;

SET quickstep.enable_shared_scan = on;
SET cpu_operator_cost = 1;

-- Joining a circle mid-way: a cursor holds a member part way round the
-- table; a second scan starts where the cursor is and still sees every row.
SELECT pg_relation_size('ss_nsm') / current_setting('block_size')::int > 64 AS enough_pages;
BEGIN;
DECLARE cur NO SCROLL CURSOR FOR SELECT id FROM ss_nsm WHERE a >= 0;
MOVE FORWARD 8000 IN cur;
SELECT relid, members, next_block > 0 AS moved, chunks > 0 AS read FROM quickstep.shared_scans;
SELECT ss_sum('ss_nsm', 'a >= 0') = ss_sum('ss_heap', 'a >= 0') AS same_from_mid_circle;
-- the rest of the cursor, then the first 8000 again: all rows once
SELECT count(*), count(DISTINCT id) FROM (
  SELECT id FROM ss_nsm WHERE a >= 0 AND id IN (SELECT id FROM ss_heap)
) s;
MOVE FORWARD ALL IN cur;
SELECT count(*) AS circles_left FROM quickstep.shared_scans;
COMMIT;

-- the rows a mid-circle member returns, in full, against heap
BEGIN;
DECLARE cur2 NO SCROLL CURSOR FOR SELECT id FROM ss_pax WHERE a >= 0;
MOVE FORWARD 5000 IN cur2;
CREATE TEMP TABLE got AS SELECT * FROM ss_pax WHERE a >= 0;
SELECT (SELECT count(*) FROM got) AS got,
       (SELECT count(*) FROM ss_heap WHERE a >= 0) AS expected,
       (SELECT count(*) FROM (SELECT * FROM got EXCEPT ALL SELECT * FROM ss_heap) e) AS extra,
       (SELECT count(*) FROM (SELECT * FROM ss_heap WHERE a >= 0 EXCEPT ALL SELECT * FROM got) m) AS missing;
CLOSE cur2;
COMMIT;
SELECT count(*) AS circles_left FROM quickstep.shared_scans;

-- A cancelled or failing member frees its slot at transaction end.
BEGIN;
DECLARE cur3 NO SCROLL CURSOR FOR SELECT id FROM ss_hpl WHERE a >= 0;
MOVE FORWARD 3000 IN cur3;
SELECT count(*) AS circles FROM quickstep.shared_scans;
SELECT 1 / 0;
ROLLBACK;
SELECT count(*) AS circles_left FROM quickstep.shared_scans;

-- One member scans a chunk for another (step 2): two cursors of one
-- backend read the same table in turns, each chunk being read once for
-- both (the second cursor joins where the first goes next, so each of them
-- takes a chunk the other needs too).  Different quals, one of them not
-- native (text: the receiving member rechecks it), different columns.
CREATE FUNCTION ss_two(tab text, OUT n1 bigint, OUT s1 numeric, OUT n2 bigint, OUT s2 numeric)
LANGUAGE plpgsql AS $$
DECLARE
	c1 refcursor;
	c2 refcursor;
	r1 record;
	r2 record;
	more1 boolean := true;
	more2 boolean := true;
BEGIN
	n1 := 0; s1 := 0; n2 := 0; s2 := 0;
	OPEN c1 NO SCROLL FOR EXECUTE format('SELECT id, b FROM %I WHERE a < 100', tab);
	OPEN c2 NO SCROLL FOR EXECUTE format('SELECT id, c, d FROM %I WHERE a BETWEEN 50 AND 149 AND c > ''8''', tab);
	WHILE more1 OR more2 LOOP
		IF more1 THEN
			FETCH c1 INTO r1;
			IF FOUND THEN
				n1 := n1 + 1; s1 := s1 + r1.id + r1.b;
			ELSE
				more1 := false;
			END IF;
		END IF;
		IF more2 THEN
			FETCH c2 INTO r2;
			IF FOUND THEN
				n2 := n2 + 1; s2 := s2 + r2.id + hashtext(r2.c) + (r2.d - date '2020-01-01');
			ELSE
				more2 := false;
			END IF;
		END IF;
	END LOOP;
END
$$;
CREATE TEMP TABLE stats0 AS SELECT * FROM quickstep.shared_scan_backend_stats();
SELECT tab, (ss_two(tab)).* FROM unnest(ARRAY['ss_nsm', 'ss_pax', 'ss_hpl']) AS tab ORDER BY 1;
SELECT s.chunks_received > b.chunks_received AS received,
       s.deliveries > b.deliveries AS delivered,
       s.chunks_served > b.chunks_served AS served,
       s.chunks_taken_back = b.chunks_taken_back AS none_taken_back
  FROM quickstep.shared_scan_backend_stats() s, stats0 b;
DROP TABLE stats0;
-- heap's answers (heap scans do not share)
SELECT (SELECT count(*) FROM ss_heap WHERE a < 100) AS n1,
       (SELECT sum(id + b) FROM ss_heap WHERE a < 100) AS s1,
       (SELECT count(*) FROM ss_heap WHERE a BETWEEN 50 AND 149 AND c > '8') AS n2,
       (SELECT sum(id + hashtext(c) + (d - date '2020-01-01')) FROM ss_heap
         WHERE a BETWEEN 50 AND 149 AND c > '8') AS s2;

-- Counters as the unshared scan's (review L3): a member counts the rows of
-- a chunk scanned for it, and of a chunk it scanned for itself while
-- serving others, in seq_tup_read (the records its snapshot sees) and in
-- "Rows Removed by Storage Filter", as it would have reading the pages.
-- The same queries with sharing on and off: the two cursors of ss_two, and
-- a self hash join (the outer scan takes its first chunk, then the inner
-- one reads every other chunk for both), each side with a qual that is not
-- native (text), so that the received rows are rechecked and the
-- scanner's own rows filtered after delivery.
CREATE FUNCTION ss_counted(shared boolean, OUT removed text, OUT chunks text)
LANGUAGE plpgsql AS $$
DECLARE
	q text;
	l text;
BEGIN
	PERFORM set_config('quickstep.enable_shared_scan', shared::text, true);
	SET LOCAL enable_mergejoin = off;
	SET LOCAL enable_nestloop = off;
	PERFORM ss_two(tab) FROM unnest(ARRAY['ss_nsm', 'ss_pax', 'ss_hpl']) AS tab;
	removed := '';
	chunks := '';
	FOR q IN SELECT format('EXPLAIN (ANALYZE, VERBOSE, COSTS OFF, TIMING OFF, SUMMARY OFF) '
						   'SELECT count(*), sum(x.b) FROM %I x JOIN %I y ON x.id = y.id '
						   'WHERE x.a < 100 AND x.c > ''8'' AND y.a BETWEEN 50 AND 149 AND y.c < ''c''',
						   tab, tab)
			   FROM unnest(ARRAY['ss_nsm', 'ss_pax', 'ss_hpl']) AS tab
	LOOP
		FOR l IN EXECUTE q LOOP
			IF l ~ 'Rows Removed' THEN
				removed := removed || btrim(l) || '; ';
			ELSIF l ~ 'Shared Chunks' THEN
				chunks := chunks || btrim(l) || '; ';
			END IF;
		END LOOP;
	END LOOP;
END
$$;
SELECT pg_stat_force_next_flush();
CREATE TEMP TABLE reads0 AS SELECT relname, seq_tup_read FROM pg_stat_user_tables
  WHERE relname IN ('ss_nsm', 'ss_pax', 'ss_hpl');
CREATE TEMP TABLE stats0 AS SELECT * FROM quickstep.shared_scan_backend_stats();
-- (a statement with an xid would not join: \gset, not a table)
SELECT removed AS on_removed, chunks AS on_chunks FROM ss_counted(true) \gset
SELECT pg_stat_force_next_flush();
CREATE TEMP TABLE reads1 AS SELECT relname, seq_tup_read FROM pg_stat_user_tables
  WHERE relname IN ('ss_nsm', 'ss_pax', 'ss_hpl');
SELECT s.chunks_received > b.chunks_received AS received,
       s.chunks_served > b.chunks_served AS served,
       s.chunks_taken_back = b.chunks_taken_back AS none_taken_back
  FROM quickstep.shared_scan_backend_stats() s, stats0 b;
SELECT removed AS off_removed FROM ss_counted(false) \gset
SELECT pg_stat_force_next_flush();
CREATE TEMP TABLE reads2 AS SELECT relname, seq_tup_read FROM pg_stat_user_tables
  WHERE relname IN ('ss_nsm', 'ss_pax', 'ss_hpl');
-- the join's scans received and served chunks; the counts are the same
SELECT :'on_chunks' ~ 'scanned for others [1-9]' AND :'on_chunks' ~ 'received [1-9]' AS join_shared,
       :'on_removed' = :'off_removed' AS same_removed;
SELECT r0.relname, r1.seq_tup_read - r0.seq_tup_read AS shared_reads,
       r2.seq_tup_read - r1.seq_tup_read AS unshared_reads
  FROM reads0 r0 JOIN reads1 r1 USING (relname) JOIN reads2 r2 USING (relname)
 ORDER BY 1;
DROP TABLE reads0, reads1, reads2, stats0;
DROP FUNCTION ss_counted(boolean);

-- A restart does not rejoin: it reads the chunks of its first walk again
-- in the same order.  A WITH HOLD cursor is rewound at commit and skips
-- the rows it returned before, so a new order would return some rows
-- twice and others never.  (The cursors are read by a function that
-- writes nothing: a transaction with an xid does not join.)
CREATE FUNCTION ss_take(cur text, n int, OUT cnt bigint, OUT s numeric, OUT s2 numeric)
LANGUAGE plpgsql AS $$
DECLARE
	c refcursor := cur;
	r record;
BEGIN
	cnt := 0; s := 0; s2 := 0;
	LOOP
		EXIT WHEN n >= 0 AND cnt >= n;
		FETCH c INTO r;
		EXIT WHEN NOT FOUND;
		cnt := cnt + 1; s := s + r.id; s2 := s2 + r.id::numeric * r.id;
	END LOOP;
END
$$;
BEGIN;
DECLARE b NO SCROLL CURSOR FOR SELECT id FROM ss_nsm WHERE a >= 0;
MOVE FORWARD 10000 IN b;
DECLARE h NO SCROLL CURSOR WITH HOLD FOR SELECT id FROM ss_nsm WHERE a >= 0;
SELECT cnt AS cnt1, s AS s1, s2 AS s21 FROM ss_take('h', 3000) \gset
SELECT members AS circle_members FROM quickstep.shared_scans;
CLOSE b;
COMMIT;
SELECT cnt + :cnt1 AS cnt, s + :s1 = (SELECT sum(id) FROM ss_heap WHERE a >= 0) AS same_sum,
       s2 + :s21 = (SELECT sum(id::numeric * id) FROM ss_heap WHERE a >= 0) AS same_sum2,
       (SELECT count(*) FROM ss_heap WHERE a >= 0) AS expected
  FROM ss_take('h', -1);
CLOSE h;

-- Slots taken in a subtransaction are freed when it aborts (a loop of
-- caught errors must not fill the registry); a cursor opened before the
-- subtransaction and read inside it goes on alone, with every row.
BEGIN;
DO $$
BEGIN
	FOR i IN 1..70 LOOP
		BEGIN
			PERFORM 1 / (a - a) FROM ss_nsm WHERE a >= 0;
		EXCEPTION WHEN division_by_zero THEN
		END;
	END LOOP;
END
$$;
SELECT count(*) AS circles_left FROM quickstep.shared_scans;
DECLARE k NO SCROLL CURSOR FOR SELECT id FROM ss_pax WHERE a >= 0;
SAVEPOINT s;
SELECT cnt FROM ss_take('k', 7000);
SELECT count(*) AS circles FROM quickstep.shared_scans;
ROLLBACK TO s;
SELECT count(*) AS circles_left FROM quickstep.shared_scans;
SELECT t.cnt + 7000 = (SELECT count(*) FROM ss_heap WHERE a >= 0) AS all_rows
  FROM ss_take('k', -1) t;
COMMIT;
DROP FUNCTION ss_take(text, int);

-- a serializable transaction's scan does not join: its predicate locks
-- and conflict checks are its own
BEGIN ISOLATION LEVEL SERIALIZABLE;
SELECT ss_explain('SELECT * FROM ss_nsm WHERE a < 10', 'Shared Scan');
ROLLBACK;

-- Fallbacks, each shown by EXPLAIN.
SELECT ss_explain('SELECT * FROM ss_nsm WHERE a < 10', 'Shared Scan');
-- a scrollable cursor may go back: it does not join (EXPLAIN DECLARE plans
-- without the executor's backward flag, so only running it shows this)
BEGIN;
DECLARE sc SCROLL CURSOR FOR SELECT id FROM ss_nsm WHERE a >= 0;
MOVE FORWARD 3000 IN sc;
SELECT count(*) AS circles FROM quickstep.shared_scans;
FETCH BACKWARD 2 FROM sc;
FETCH FORWARD 2 FROM sc;
ROLLBACK;
-- the statement writes the table
EXPLAIN (COSTS OFF) UPDATE ss_nsm SET f = f WHERE a < 10;
-- the transaction has written
BEGIN;
INSERT INTO ss_nsm VALUES (-1, 5, 0, 'own', date '2020-01-01', 0);
SELECT ss_explain('SELECT * FROM ss_nsm WHERE a < 10', 'Shared Scan');
SELECT count(*) FROM ss_nsm WHERE a = 5 AND c = 'own';
ROLLBACK;
-- parallel plans
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SELECT ss_explain('SELECT * FROM ss_nsm WHERE a < 10', 'Shared Scan');
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
SET max_parallel_workers_per_gather = 0;
-- switched off: no line at all
SET quickstep.enable_shared_scan = off;
SELECT count(*) AS lines FROM ss_explain('SELECT * FROM ss_nsm WHERE a < 10', 'Shared Scan');
RESET quickstep.enable_shared_scan;
RESET cpu_operator_cost;

-- HOT chains in served chunks (review shared3 N1): a scanner judges
-- visibility over every record of a page, as the unshared scan does, and
-- keeps the visible ones among those that passed a recipient's quals.  Rows
-- updated out of the predicate (a: 0 -> 1000) and into it (1 -> 0), HOT
-- (fillfactor), then after VACUUM (roots pruned to redirects).  A self hash
-- join (the inner scan serves the outer one) and a query serving a cursor
-- must give the unshared answer, heap's, with max(a) = 0.
CREATE TABLE ss_hh_heap (id int, a int, pad text) WITH (fillfactor = 50);
CREATE TABLE ss_hh_nsm (LIKE ss_hh_heap) USING quickstep_nsm WITH (fillfactor = 50);
CREATE TABLE ss_hh_pax (LIKE ss_hh_heap) USING quickstep_pax WITH (fillfactor = 50);
CREATE TABLE ss_hh_hpl (LIKE ss_hh_heap) USING quickstep_hpl WITH (fillfactor = 50);
CREATE FUNCTION ss_hh_fill(tab text) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE format('INSERT INTO %I SELECT g, g %% 100, repeat(''x'', 40) FROM generate_series(1, 20000) g', tab);
	EXECUTE format('UPDATE %I SET a = 1000 WHERE a = 0 AND id %% 200 = 0', tab);
	EXECUTE format('UPDATE %I SET a = 0 WHERE a = 1 AND id %% 400 = 1', tab);
END
$$;
SELECT ss_hh_fill(tab) FROM unnest(ARRAY['ss_hh_heap', 'ss_hh_nsm', 'ss_hh_pax', 'ss_hh_hpl']) AS tab;
CREATE FUNCTION ss_hot(tab text, OUT unshared text, OUT self_join text,
					   OUT served text, OUT cursor_rows text, OUT shared boolean)
LANGUAGE plpgsql AS $$
DECLARE
	c refcursor;
	r record;
	n bigint;
	s bigint;
	m int;
	q text := format('SELECT count(*) || '':'' || sum(id) || '':'' || max(a) FROM %I WHERE a < 1', tab);
	got0 bigint;
BEGIN
	SET LOCAL cpu_operator_cost = 1;
	SET LOCAL enable_mergejoin = off;
	SET LOCAL quickstep.enable_shared_scan = off;
	EXECUTE q INTO unshared;
	SET LOCAL quickstep.enable_shared_scan = on;
	SELECT chunks_received INTO got0 FROM quickstep.shared_scan_backend_stats();
	EXECUTE format('SELECT count(*) || '':'' || sum(x.id) || '':'' || max(x.a) FROM %I x JOIN %I y ON x.id = y.id WHERE x.a < 1 AND y.a < 1',
				   tab, tab) INTO self_join;
	OPEN c NO SCROLL FOR EXECUTE format('SELECT id, a FROM %I WHERE a < 1', tab);
	FETCH c INTO r;
	n := 1; s := r.id; m := r.a;
	EXECUTE q INTO served;
	LOOP
		FETCH c INTO r;
		EXIT WHEN NOT FOUND;
		n := n + 1; s := s + r.id; m := greatest(m, r.a);
	END LOOP;
	CLOSE c;
	cursor_rows := n || ':' || s || ':' || m;
	SELECT chunks_received > got0 INTO shared FROM quickstep.shared_scan_backend_stats();
END
$$;
SELECT tab, (ss_hot(tab)).*
  FROM unnest(ARRAY['ss_hh_heap', 'ss_hh_nsm', 'ss_hh_pax', 'ss_hh_hpl']) AS tab ORDER BY 1;
VACUUM ss_hh_heap, ss_hh_nsm, ss_hh_pax, ss_hh_hpl;
SELECT tab, (ss_hot(tab)).*
  FROM unnest(ARRAY['ss_hh_heap', 'ss_hh_nsm', 'ss_hh_pax', 'ss_hh_hpl']) AS tab ORDER BY 1;
DROP TABLE ss_hh_heap, ss_hh_nsm, ss_hh_pax, ss_hh_hpl;
DROP FUNCTION ss_hh_fill(text), ss_hot(text);

-- A shared scan nested in a scanner's chunk (review shared3 N2(a)): the
-- scanner's own fmgr quals run while it has handed out steps, and this one
-- runs a query over another table that a cursor of the same backend reads.
-- The nested scan must not serve: its delivery would detach the outer
-- scan's pending sends (freed queue handles: SIGSEGV on PG 18).
CREATE FUNCTION ss_nest_q(int, int) RETURNS bool STABLE STRICT
LANGUAGE plpgsql AS $$
DECLARE
	n bigint;
BEGIN
	IF $1 % 4 = 0 THEN
		SELECT count(*) INTO n FROM ss_pax WHERE a < 100;
		IF n <> (SELECT count(*) FROM ss_heap WHERE a < 100) THEN
			RAISE EXCEPTION 'nested count %', n;
		END IF;
		PERFORM set_config('ss.nested', (current_setting('ss.nested')::int + 1)::text, false);
	END IF;
	RETURN $1 >= $2;
END
$$;
CREATE OPERATOR >=== (LEFTARG = int, RIGHTARG = int, FUNCTION = ss_nest_q);
SET quickstep.enable_shared_scan = on;
SET cpu_operator_cost = 1;
SET ss.nested = 0;
CREATE TEMP TABLE stats0 AS SELECT * FROM quickstep.shared_scan_backend_stats();
BEGIN;
DECLARE c NO SCROLL CURSOR FOR SELECT id FROM ss_nsm WHERE a < 100;
FETCH 1 FROM c;
DECLARE d NO SCROLL CURSOR FOR SELECT id FROM ss_pax WHERE a < 100;
FETCH 1 FROM d;
SELECT count(*), sum(id) FROM ss_nsm WHERE a < 100 AND id >=== 0;
MOVE FORWARD ALL IN c;
MOVE FORWARD ALL IN d;
COMMIT;
SELECT count(*), sum(id) FROM ss_heap WHERE a < 100;
SELECT current_setting('ss.nested')::int > 0 AS nested_ran,
       s.chunks_served > b.chunks_served AS served,
       s.chunks_taken_back = b.chunks_taken_back AS none_taken_back
  FROM quickstep.shared_scan_backend_stats() s, stats0 b;
DROP TABLE stats0;
RESET ss.nested;
RESET quickstep.enable_shared_scan;
RESET cpu_operator_cost;
DROP OPERATOR >=== (int, int);
DROP FUNCTION ss_nest_q(int, int);

DROP TABLE ss_heap, ss_nsm, ss_pax, ss_hpl;
DROP FUNCTION ss_sum(text, text), ss_explain(text, text), ss_check(text, text), ss_two(text);
