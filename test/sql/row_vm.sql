--
-- Table access method :am (set by the caller, sql/<am>_vm.sql; heap too):
-- the visibility map fork.  VACUUM sets a page's bits (all-visible, and
-- all-frozen when every record is frozen) and every change that can make a
-- record invisible to some snapshot clears them; index-only scans then skip
-- the table for all-visible pages ("Heap Fetches: 0").  Read through
-- pg_visibility, which reads any table's map: the output is the same on
-- heap and on the row layouts, so sql/heap_vm.sql runs it too.  (A row
-- lock clears all-frozen on heap and both bits on the row layouts: only
-- all-frozen is shown after one.  INDEX_CLEANUP ON: heap would otherwise
-- leave a few dead items, and their pages without bits, when only a few
-- pages have any.)
--
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS pg_visibility;
RESET client_min_messages;
SELECT :'am' <> 'heap' AS quickstep \gset
SET max_parallel_workers_per_gather = 0;

CREATE TABLE qvm (id int PRIMARY KEY, v int, pad text) USING :am;
ALTER TABLE qvm SET (autovacuum_enabled = off);
INSERT INTO qvm SELECT g, g, repeat('x', 20) FROM generate_series(1, 20000) g;

-- bits over all blocks: all, none or some (empty: no block)
CREATE FUNCTION vm_all_visible() RETURNS text LANGUAGE sql AS $$
  SELECT CASE WHEN count(*) = 0 THEN 'empty' WHEN bool_and(all_visible) THEN 'all'
              WHEN NOT bool_or(all_visible) THEN 'none' ELSE 'some' END
  FROM pg_visibility_map('qvm') $$;
CREATE FUNCTION vm_all_frozen() RETURNS text LANGUAGE sql AS $$
  SELECT CASE WHEN count(*) = 0 THEN 'empty' WHEN bool_and(all_frozen) THEN 'all'
              WHEN NOT bool_or(all_frozen) THEN 'none' ELSE 'some' END
  FROM pg_visibility_map('qvm') $$;
CREATE FUNCTION vm_blk(int) RETURNS bigint LANGUAGE sql AS $$
  SELECT (ctid::text::point)[0]::bigint FROM qvm WHERE id = $1 $$;
-- the bits of one block: all-visible, all-frozen
CREATE FUNCTION vm_bits(bigint) RETURNS text LANGUAGE sql AS $$
  SELECT all_visible || ',' || all_frozen FROM pg_visibility_map('qvm', $1) $$;
-- no block is all-visible in the map without PD_ALL_VISIBLE (pg_visibility
-- reads the page header flag of any table); on the row layouts check_table
-- also checks every bit against its page, and quickstep.page_visibility
-- shows what pg_visibility shows
\if :quickstep
CREATE FUNCTION vm_consistent() RETURNS boolean LANGUAGE sql AS $$
  SELECT count(*) = 0 AND quickstep.check_table('qvm') >= 0 AND
         NOT EXISTS (SELECT FROM quickstep.page_visibility('qvm') q
                       FULL JOIN pg_visibility('qvm') p USING (blkno)
                      WHERE q.all_visible IS DISTINCT FROM p.pd_all_visible OR
                            q.vm_all_visible IS DISTINCT FROM p.all_visible OR
                            q.vm_all_frozen IS DISTINCT FROM p.all_frozen)
  FROM pg_visibility('qvm') WHERE all_visible AND NOT pd_all_visible $$;
\else
CREATE FUNCTION vm_consistent() RETURNS boolean LANGUAGE sql AS $$
  SELECT count(*) = 0 FROM pg_visibility('qvm') WHERE all_visible AND NOT pd_all_visible $$;
\endif
-- an index-only scan's plan line and its heap fetches (none, or some)
CREATE FUNCTION vm_ios(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	line text;
	node text := 'no index-only scan';
	fetches text := '';
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
		IF line ~ 'Index Only Scan' THEN
			node := 'index-only scan';
		ELSIF line ~ 'Heap Fetches: ' THEN
			fetches := CASE WHEN substring(line FROM 'Heap Fetches: ([0-9]+)')::int = 0
							THEN ', heap fetches: 0' ELSE ', heap fetches: some' END;
		END IF;
	END LOOP;
	RETURN node || fetches;
END $$;

SELECT vm_all_visible() AS after_insert, pg_relation_size('qvm', 'vm') AS vm_size;
VACUUM (INDEX_CLEANUP ON) qvm;
SELECT vm_all_visible() AS after_vacuum, pg_relation_size('qvm', 'vm') > 0 AS vm_fork;
SELECT relallvisible = relpages AND relpages > 0 AS relallvisible_all
  FROM pg_class WHERE relname = 'qvm';
SELECT vm_consistent();

-- index-only scans skip the table for all-visible pages
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT vm_ios('SELECT count(*) FROM qvm WHERE id BETWEEN 100 AND 5000');
SELECT count(*), sum(id) FROM qvm WHERE id BETWEEN 100 AND 5000;

-- UPDATE clears the old version's page and the new version's
SELECT vm_blk(10) AS b_old \gset
UPDATE qvm SET v = -v WHERE id = 10;
SELECT vm_bits(:b_old) AS old_page, vm_bits(vm_blk(10)) AS new_page;
SELECT vm_ios('SELECT count(*) FROM qvm WHERE id BETWEEN 1 AND 100');
SELECT count(*), sum(id) FROM qvm WHERE id BETWEEN 1 AND 100;
SELECT vm_consistent();
VACUUM (INDEX_CLEANUP ON) qvm;
SELECT vm_all_visible() AS after_vacuum, vm_bits(vm_blk(10)) AS new_page;
SELECT vm_consistent();

-- DELETE
SELECT vm_blk(20) AS b \gset
DELETE FROM qvm WHERE id = 20;
SELECT vm_bits(:b) AS deleted_page;
SELECT count(*), sum(id) FROM qvm WHERE id BETWEEN 1 AND 100;
SELECT vm_consistent();
VACUUM (INDEX_CLEANUP ON) qvm;
SELECT vm_all_visible() AS after_vacuum;

-- INSERT
INSERT INTO qvm VALUES (20, 20, 'again');
SELECT vm_bits(vm_blk(20)) AS inserted_page;
SELECT vm_consistent();
VACUUM (INDEX_CLEANUP ON) qvm;
SELECT vm_all_visible() AS after_vacuum;

-- VACUUM (FREEZE) sets all-frozen everywhere
VACUUM (FREEZE, INDEX_CLEANUP ON) qvm;
SELECT vm_all_visible() AS all_visible, vm_all_frozen() AS all_frozen;
SELECT vm_consistent();

-- row locks clear all-frozen (FOR UPDATE, FOR KEY SHARE); the next
-- VACUUM (FREEZE) sets it again
BEGIN;
SELECT v FROM qvm WHERE id = 3 FOR UPDATE;
SELECT all_frozen AS locked_page_all_frozen FROM pg_visibility_map('qvm', vm_blk(3));
SELECT vm_consistent();
COMMIT;
VACUUM (FREEZE, INDEX_CLEANUP ON) qvm;
SELECT vm_all_frozen() AS all_frozen;
BEGIN;
SELECT v FROM qvm WHERE id = 4 FOR KEY SHARE;
SELECT all_frozen AS key_share_page_all_frozen FROM pg_visibility_map('qvm', vm_blk(4));
COMMIT;
VACUUM (FREEZE, INDEX_CLEANUP ON) qvm;
SELECT vm_all_visible() AS all_visible, vm_all_frozen() AS all_frozen;

-- an aborted UPDATE: both pages lose their bits, which stay clear
SELECT vm_blk(5) AS b \gset
BEGIN;
UPDATE qvm SET v = -5 WHERE id = 5;
SELECT vm_bits(:b) AS updating_page;
ROLLBACK;
SELECT vm_bits(:b) AS aborted_update_page, v FROM qvm WHERE id = 5;
SELECT vm_consistent();
VACUUM (INDEX_CLEANUP ON) qvm;
SELECT vm_all_visible() AS after_vacuum;

-- ON CONFLICT DO UPDATE and DO NOTHING on a frozen table
VACUUM (FREEZE, INDEX_CLEANUP ON) qvm;
INSERT INTO qvm VALUES (6, 6, 'x') ON CONFLICT (id) DO UPDATE SET v = -6;
INSERT INTO qvm VALUES (7, 7, 'x') ON CONFLICT (id) DO NOTHING;
SELECT vm_bits(vm_blk(6)) AS upsert_page, vm_bits(vm_blk(7)) AS nothing_page;
SELECT vm_consistent();
VACUUM (INDEX_CLEANUP ON) qvm;

-- COPY into a table whose pages are all-visible
COPY qvm FROM PROGRAM 'seq 20001 20100 | sed "s/.*/&\t&\tcopied/"';
SELECT vm_bits(vm_blk(20001)) AS copied_page, vm_consistent();
VACUUM (INDEX_CLEANUP ON) qvm;
SELECT vm_all_visible() AS after_vacuum;

-- a read-only workload after VACUUM: index-only scans, no heap fetches
SELECT vm_ios('SELECT id FROM qvm WHERE id > 19000 ORDER BY id');
SELECT count(*), sum(id) FROM (SELECT id FROM qvm WHERE id > 19000 ORDER BY id) s;
RESET enable_seqscan;
RESET enable_bitmapscan;

-- DISABLE_PAGE_SKIPPING reads every page and leaves the bits right
VACUUM (DISABLE_PAGE_SKIPPING) qvm;
SELECT vm_all_visible() AS all_visible, vm_consistent();

-- many deletions
DELETE FROM qvm WHERE id > 10000;
VACUUM (INDEX_CLEANUP ON) qvm;
SELECT vm_all_visible() AS after_delete,
       (SELECT count(*) FROM pg_visibility_map('qvm')) = pg_relation_size('qvm') / 8192 AS map_covers_table;
SELECT relallvisible = relpages AS relallvisible_all FROM pg_class WHERE relname = 'qvm';
SELECT vm_consistent();

-- VACUUM truncating empty tail pages truncates the map with them
CREATE TABLE qvm_t (id int) USING :am;
ALTER TABLE qvm_t SET (autovacuum_enabled = off);
INSERT INTO qvm_t SELECT generate_series(1, 10000);
VACUUM qvm_t;
SELECT pg_relation_size('qvm_t') AS size_before \gset
DELETE FROM qvm_t WHERE id > 5000;
VACUUM qvm_t;
SELECT bool_and(all_visible) AS after_truncate,
       count(*) = pg_relation_size('qvm_t') / 8192 AS map_covers_table,
       pg_relation_size('qvm_t') < :size_before AS truncated
  FROM pg_visibility_map('qvm_t');
SELECT pg_relation_size('qvm_t') / 8192 AS pages_after \gset
-- the pages the table grows by again start without bits
INSERT INTO qvm_t SELECT generate_series(5001, 10000);
SELECT bool_or(all_visible) AS new_pages_all_visible
  FROM pg_visibility_map('qvm_t') WHERE blkno >= :pages_after - 1;
DROP TABLE qvm_t;

-- ANALYZE counts all-visible pages too
UPDATE pg_class SET relallvisible = 0 WHERE relname = 'qvm';
ANALYZE qvm;
SELECT relallvisible = relpages AS relallvisible_all FROM pg_class WHERE relname = 'qvm';

-- TRUNCATE gives the table new storage without a map, also when rolled back
BEGIN;
TRUNCATE qvm;
SELECT vm_all_visible() AS truncated, pg_relation_size('qvm', 'vm') AS vm_size;
ROLLBACK;
SELECT vm_all_visible() AS rolled_back, vm_consistent();
TRUNCATE qvm;
SELECT vm_all_visible() AS truncated, pg_relation_size('qvm', 'vm') AS vm_size;
INSERT INTO qvm SELECT g, g, 'y' FROM generate_series(1, 1000) g;
VACUUM (INDEX_CLEANUP ON) qvm;
SELECT vm_all_visible() AS refilled, vm_consistent();

-- VACUUM FULL and CLUSTER write new pages, without bits until VACUUM
VACUUM FULL qvm;
SELECT vm_all_visible() AS after_vacuum_full, vm_consistent();
VACUUM (INDEX_CLEANUP ON) qvm;
SELECT vm_all_visible() AS after_vacuum;

-- SET TABLESPACE copies the map
SET allow_in_place_tablespaces = on;
CREATE TABLESPACE regress_qs_vm_ts LOCATION '';
ALTER TABLE qvm SET TABLESPACE regress_qs_vm_ts;
SELECT vm_all_visible() AS moved, vm_consistent();
ALTER TABLE qvm SET TABLESPACE pg_default;
DROP TABLESPACE regress_qs_vm_ts;

-- an UNLOGGED table has a map too
CREATE UNLOGGED TABLE qvm_u (id int PRIMARY KEY) USING :am;
INSERT INTO qvm_u SELECT generate_series(1, 5000);
VACUUM qvm_u;
SELECT bool_and(all_visible) AS unlogged_all_visible FROM pg_visibility_map('qvm_u');
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT vm_ios('SELECT count(*) FROM qvm_u WHERE id < 1000');
RESET enable_seqscan;
RESET enable_bitmapscan;
DROP TABLE qvm_u;

RESET max_parallel_workers_per_gather;
DROP TABLE qvm;
DROP FUNCTION vm_all_visible(), vm_all_frozen(), vm_blk(int), vm_bits(bigint),
	vm_consistent(), vm_ios(text);
SET client_min_messages = warning;
DROP EXTENSION pg_visibility;
RESET client_min_messages;
