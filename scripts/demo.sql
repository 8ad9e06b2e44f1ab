-- The demo: one table per table access method the extension offers (and
-- heap beside them), the same rows in each, and queries that show them.
\pset footer off
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS quickstep_am;

\echo
\echo '== quickstep_am on this server =='
SELECT * FROM quickstep.status();
SELECT name, setting, short_desc FROM pg_settings WHERE name LIKE 'quickstep.%' ORDER BY name;

\echo
\echo '== access methods: heap and those of quickstep_am =='
SELECT amname, CASE amtype WHEN 't' THEN 'table' ELSE 'index' END AS kind
  FROM pg_am
 WHERE amname = 'heap'
    OR oid IN (SELECT objid FROM pg_depend d JOIN pg_extension e ON e.oid = d.refobjid
                WHERE e.extname = 'quickstep_am' AND d.classid = 'pg_am'::regclass)
 ORDER BY kind DESC, amname;

-- 200,000 orders, the same in every table (fixed seed).
DO $$
DECLARE
	am text;
BEGIN
	FOR am IN
		SELECT amname FROM pg_am
		 WHERE amtype = 't' AND (amname = 'heap' OR amname LIKE 'quickstep%')
		 ORDER BY amname
	LOOP
		EXECUTE format('DROP TABLE IF EXISTS demo_%s', am);
		EXECUTE format('CREATE TABLE demo_%s (id int, customer int, amount numeric(10,2),
						status text, placed date) USING %I', am, am);
		PERFORM setseed(0.42);
		EXECUTE format($f$INSERT INTO demo_%s
			SELECT g, 1 + (random() * 9999)::int, round((random() * 1000)::numeric, 2),
				   (ARRAY['open', 'paid', 'shipped', 'returned'])[1 + (g %% 4)],
				   date '2026-01-01' + (g %% 300)
			  FROM generate_series(1, 200000) g$f$, am);
		EXECUTE format('ANALYZE demo_%s', am);
	END LOOP;
END
$$;

-- Run one query on every demo table ({t} names the table); one row each.
CREATE FUNCTION pg_temp.on_each(query text)
RETURNS TABLE (table_name text, layout name, result text) LANGUAGE plpgsql AS $$
DECLARE
	t record;
BEGIN
	FOR t IN SELECT c.oid::regclass::text AS rel, a.amname
			   FROM pg_class c JOIN pg_am a ON a.oid = c.relam
			  WHERE c.relname LIKE 'demo\_%' AND c.relkind = 'r' ORDER BY 1
	LOOP
		table_name := t.rel;
		layout := t.amname;
		EXECUTE replace(query, '{t}', t.rel) INTO result;
		RETURN NEXT;
	END LOOP;
END
$$;

\echo
\echo '== size of each demo table =='
SELECT c.relname AS table_name, a.amname AS layout,
       pg_size_pretty(pg_table_size(c.oid)) AS size, c.relpages AS pages,
       round(c.reltuples / greatest(c.relpages, 1)) AS rows_per_page
  FROM pg_class c JOIN pg_am a ON a.oid = c.relam
 WHERE c.relname LIKE 'demo\_%' AND c.relkind = 'r'
 ORDER BY 1;

\echo
\echo '== the same rows in every table: count, sum and an order-independent checksum =='
SELECT * FROM pg_temp.on_each($q$
	SELECT format('%s rows, amount %s, checksum %s', count(*), sum(amount),
				  sum(hashtext(id || ':' || customer || ':' || amount || ':' || status || ':' || placed)::numeric))
	  FROM {t}$q$);

\echo
\echo '== March revenue by status (a selective scan with grouping) =='
SELECT * FROM pg_temp.on_each($q$
	SELECT string_agg(format('%s=%s', status, revenue), ', ' ORDER BY status)
	  FROM (SELECT status, sum(amount) AS revenue FROM {t}
			 WHERE placed BETWEEN '2026-03-01' AND '2026-03-31' GROUP BY status) s$q$);

SELECT to_regclass('demo_quickstep_nsm') IS NOT NULL AS has_nsm \gset
\if :has_nsm
\echo '   on quickstep_nsm the predicate runs inside the storage (QuickstepScan):'
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
SELECT status, sum(amount) FROM demo_quickstep_nsm
 WHERE placed BETWEEN '2026-03-01' AND '2026-03-31' GROUP BY status;
\endif

\echo
\echo '== one customer through an index =='
DO $$
DECLARE
	t record;
	idxam text := CASE WHEN EXISTS (SELECT 1 FROM pg_am WHERE amname = 'csbtree')
					   THEN 'csbtree' ELSE 'btree' END;
BEGIN
	FOR t IN SELECT c.oid::regclass::text AS rel FROM pg_class c
			  WHERE c.relname LIKE 'demo\_%' AND c.relkind = 'r'
	LOOP
		EXECUTE format('CREATE INDEX ON %s USING %s (customer)', t.rel, idxam);
	END LOOP;
END
$$;
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT id, amount FROM demo_heap WHERE customer = 4242;
\if :has_nsm
EXPLAIN (COSTS OFF) SELECT id, amount FROM demo_quickstep_nsm WHERE customer = 4242;
\endif
SELECT * FROM pg_temp.on_each($q$
	SELECT format('%s orders, ids %s .. %s, total %s', count(*), min(id), max(id), sum(amount)) FROM {t} WHERE customer = 4242$q$);
RESET enable_seqscan;

\echo
\echo '== the column table: its blocks (per column: encoding, min, max) and its stats =='
SELECT to_regclass('demo_quickstep_column') IS NOT NULL AS has_column \gset
\if :has_column
SELECT block_id, state, rows, column_name, encoding, min, max,
       pg_size_pretty(stripe_bytes + dictionary_bytes) AS column_bytes
  FROM quickstep.blocks('demo_quickstep_column') ORDER BY block_id, column_name;
SELECT relid, delta_rows, main_rows, blocks, sealed_blocks,
       pg_size_pretty(bytes) AS block_bytes, pg_size_pretty(raw_bytes) AS raw_at_least
  FROM quickstep.column_stats;

\echo
\echo '== the merge: single-row inserts land in the row delta; quickstep.merge() moves them into a block, invisibly =='
INSERT INTO demo_quickstep_column SELECT 1000000 + g, g % 5000, g * 0.5 FROM generate_series(1, 200) g;
INSERT INTO demo_quickstep_column VALUES (2000001, 4242, 1.5);
SELECT relid, delta_rows, main_rows, blocks FROM quickstep.column_stats;
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT count(*) AS rows_seen_before_the_merge FROM demo_quickstep_column;
\echo 'another session merges the delta while this snapshot stays open:'
\! "$QS_DEMO_PSQL" -X -q -At -d quickstep_demo -c "SELECT 'rows moved: ' || quickstep.merge('demo_quickstep_column')"
SELECT count(*) AS rows_seen_after_the_merge_same_snapshot FROM demo_quickstep_column;
COMMIT;
SELECT relid, delta_rows, main_rows, blocks FROM quickstep.column_stats;
SELECT quickstep.check_table('demo_quickstep_column') AS rows_checked;
\endif
