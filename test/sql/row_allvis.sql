--
-- Row layout :am (set by the caller, sql/<layout>_allvis.sql): the page-level
-- all-visible flag (PD_ALL_VISIBLE).  Only VACUUM sets it, on a page whose
-- records are all visible to every snapshot; every change that can make a
-- record invisible to some snapshot clears it (INSERT, UPDATE on the old
-- and the new page, DELETE, SELECT FOR UPDATE/SHARE, an aborted UPDATE).
-- Scans of flagged pages skip the per-record test: results stay the same.
--
CREATE TABLE qv (id int PRIMARY KEY, v int) USING :am;
ALTER TABLE qv SET (autovacuum_enabled = off);
INSERT INTO qv SELECT g, g FROM generate_series(1, 1000) g;

-- what the flags look like: no page flagged, all pages flagged, or which
CREATE FUNCTION qv_flags() RETURNS text LANGUAGE sql AS $$
  SELECT CASE WHEN bool_and(all_visible) THEN 'all pages'
              WHEN NOT bool_or(all_visible) THEN 'no page'
              ELSE 'some pages' END
  FROM quickstep.page_visibility('qv') $$;
CREATE FUNCTION qv_blk(int) RETURNS bigint LANGUAGE sql AS $$
  SELECT (ctid::text::point)[0]::bigint FROM qv WHERE id = $1 $$;
CREATE FUNCTION qv_flag(bigint) RETURNS boolean LANGUAGE sql AS $$
  SELECT all_visible FROM quickstep.page_visibility('qv') WHERE blkno = $1 $$;

SELECT qv_flags() AS after_insert;
VACUUM qv;
SELECT qv_flags() AS after_vacuum;
SELECT quickstep.check_table('qv');
SELECT count(*), sum(v) FROM qv;
SELECT count(*), sum(v) FROM qv WHERE v >= 990;

-- UPDATE clears the old version's page and the new version's
SELECT qv_blk(1) AS b_old \gset
UPDATE qv SET v = -1 WHERE id = 1;
SELECT qv_flag(:b_old) AS old_page_flag, qv_flag(qv_blk(1)) AS new_page_flag;
SELECT quickstep.check_table('qv');
SELECT count(*), sum(v) FROM qv;
SELECT v FROM qv WHERE id = 1;
-- the dead version removed, VACUUM flags the page again (second pass)
VACUUM qv;
SELECT qv_flags() AS after_vacuum;
SELECT quickstep.check_table('qv');

-- DELETE
SELECT qv_blk(2) AS b \gset
DELETE FROM qv WHERE id = 2;
SELECT qv_flag(:b) AS deleted_page_flag;
SELECT count(*), sum(v) FROM qv;
VACUUM qv;
SELECT qv_flags() AS after_vacuum;

-- INSERT
INSERT INTO qv VALUES (2, 2);
SELECT qv_flag(qv_blk(2)) AS inserted_page_flag;
SELECT count(*), sum(v) FROM qv;
VACUUM qv;
SELECT qv_flags() AS after_vacuum;

-- SELECT FOR UPDATE and FOR KEY SHARE (xmax = a locker) clear it; once the
-- lockers are gone VACUUM sets it again
BEGIN;
SELECT v FROM qv WHERE id = 3 FOR UPDATE;
SELECT qv_flag(qv_blk(3)) AS locked_page_flag;
SELECT quickstep.check_table('qv');
COMMIT;
VACUUM qv;
SELECT qv_flags() AS after_vacuum;
BEGIN;
SELECT v FROM qv WHERE id = 4 FOR KEY SHARE;
SELECT qv_flag(qv_blk(4)) AS key_share_page_flag;
SELECT quickstep.check_table('qv');
COMMIT;
VACUUM qv;
SELECT qv_flags() AS after_vacuum;

-- an aborted UPDATE: its new version dies, the old one stays visible to all
SELECT qv_blk(5) AS b \gset
BEGIN;
UPDATE qv SET v = -5 WHERE id = 5;
ROLLBACK;
SELECT qv_flag(:b) AS aborted_update_page_flag;
SELECT v FROM qv WHERE id = 5;
VACUUM qv;
SELECT qv_flags() AS after_vacuum;
SELECT quickstep.check_table('qv');

-- an insert into a flagged page is seen by its own transaction
BEGIN;
INSERT INTO qv VALUES (1001, 1001);
SELECT count(*), sum(v) FROM qv;
COMMIT;
VACUUM qv;
SELECT qv_flags() AS after_vacuum;

-- an asynchronous commit, flushed or not, does not keep VACUUM from
-- flagging (the flag's WAL record follows the commit record)
SET synchronous_commit = off;
INSERT INTO qv SELECT g, g FROM generate_series(2001, 2100) g;
RESET synchronous_commit;
VACUUM qv;
SELECT qv_flags() AS after_async_insert_vacuum;
SELECT quickstep.check_table('qv');
DELETE FROM qv WHERE id > 2000;
VACUUM qv;

-- flagged pages read the same through every scan
SELECT count(*), sum(v) FROM qv;
SET enable_seqscan = off;
SELECT count(*), sum(v) FROM qv WHERE id BETWEEN 100 AND 200;
SET enable_indexscan = off;
SELECT count(*), sum(v) FROM qv WHERE id BETWEEN 100 AND 200;
RESET enable_seqscan;
RESET enable_indexscan;
SELECT count(*) FROM qv TABLESAMPLE SYSTEM (100);
SELECT count(*) > 0 AND count(*) = (SELECT count(*) FROM qv WHERE qv_blk(id) = 0) AS tid_range_ok
  FROM qv WHERE ctid >= '(0,1)' AND ctid < '(1,1)';
SELECT quickstep.check_table('qv');

-- a serializable transaction reads flagged pages too (conflict-out checks)
BEGIN ISOLATION LEVEL SERIALIZABLE;
SELECT count(*), sum(v) FROM qv;
COMMIT;

-- QuickstepScan's integer comparisons (PAX and HPL filter them in place,
-- filter_range) give heap's rows: NULLs, the three widths and dates, bounds
-- beyond the column's type, attributes added later (with and without a
-- missing value), on pages flagged all-visible and not
CREATE TABLE qi_heap (id int, a int, b int8, s smallint, d date) USING heap;
INSERT INTO qi_heap
SELECT g, CASE WHEN g % 13 = 0 THEN NULL ELSE g % 1000 END,
       CASE WHEN g % 17 = 0 THEN NULL ELSE (g::int8 * 1000003) % 10000000000 - 5000000000 END,
       (g % 300)::smallint, date '2020-01-01' + g % 500
  FROM generate_series(1, 5000) g;
CREATE TABLE qi (LIKE qi_heap) USING :am;
ALTER TABLE qi SET (autovacuum_enabled = off);
INSERT INTO qi SELECT * FROM qi_heap;
CREATE FUNCTION qi_check(pred text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	h text; q text; plan text;
BEGIN
	EXECUTE format('SELECT count(*) || '':'' || coalesce(sum(hashtext(x::text)::numeric), 0) FROM qi_heap x WHERE %s', pred) INTO h;
	SET LOCAL quickstep.enable_pushdown = on;
	SET LOCAL cpu_operator_cost = 1;
	EXECUTE format('SELECT count(*) || '':'' || coalesce(sum(hashtext(x::text)::numeric), 0) FROM qi x WHERE %s', pred) INTO q;
	EXECUTE format('EXPLAIN (COSTS OFF) SELECT * FROM qi x WHERE %s', pred) INTO plan;
	RETURN split_part(h, ':', 1) || CASE WHEN h = q THEN ' same' ELSE ' DIFFERENT' END ||
		CASE WHEN plan LIKE '%QuickstepScan%' THEN ', pushed' ELSE ', not pushed' END;
END
$$;
SET max_parallel_workers_per_gather = 0;
CREATE TABLE qi_preds (pred text);
INSERT INTO qi_preds VALUES
	('a = 42'), ('a <> 42'), ('a < 100'), ('a <= 100'), ('a > 990'), ('a >= 990'),
	('a < 3000000000'), ('a > -3000000000'), ('a >= 2147483647'), ('a IS NULL'),
	('b < 0'), ('b <> 1000003'), ('b < ''-9223372036854775808''::int8'),
	('b <= ''-9223372036854775808''::int8'), ('b > 9223372036854775807'),
	('b >= 9223372036854775807'), ('b > 4000000000 AND a < 500'),
	('s = 7'), ('s < 3::int8'), ('s >= 299'), ('s <> 0'),
	('d = date ''2020-03-01'''), ('d < ''2020-02-01''');
SELECT pred, qi_check(pred) FROM qi_preds ORDER BY pred;
VACUUM qi;
SELECT bool_and(all_visible) AS qi_all_visible FROM quickstep.page_visibility('qi');
SELECT pred, qi_check(pred) FROM qi_preds ORDER BY pred;
-- attributes added later: z has a missing value (5), y none (NULL)
ALTER TABLE qi_heap ADD COLUMN z int DEFAULT 5, ADD COLUMN y int;
ALTER TABLE qi ADD COLUMN z int DEFAULT 5, ADD COLUMN y int;
INSERT INTO qi_heap SELECT g, g % 1000, g, 1, date '2020-01-01', g % 7, g % 5
  FROM generate_series(5001, 6000) g;
INSERT INTO qi SELECT * FROM qi_heap WHERE id > 5000;
INSERT INTO qi_preds VALUES ('z = 5'), ('z <> 5'), ('z < 3'), ('y = 2'), ('y <> 2'),
	('y IS NULL'), ('y < 3 AND z >= 5');
SELECT pred, qi_check(pred) FROM qi_preds WHERE pred ~ '[yz]' ORDER BY pred;
VACUUM qi;
SELECT pred, qi_check(pred) FROM qi_preds ORDER BY pred;
SELECT quickstep.check_table('qi');
RESET max_parallel_workers_per_gather;
DROP TABLE qi, qi_heap, qi_preds;
DROP FUNCTION qi_check(text);

-- VACUUM skips runs of 32 or more pages its visibility map bits say need
-- nothing (heap's threshold): with vacuum_freeze_min_age = 0 a plain VACUUM
-- would freeze every row it reads, but it reads only the last page, so the
-- other pages stay all-visible and not all-frozen, and relfrozenxid stays;
-- DISABLE_PAGE_SKIPPING reads them, and so does an aggressive VACUUM
-- (FREEZE); once all-frozen, skipping them no longer holds relfrozenxid back
CREATE TABLE qs_skip (id int, pad text) USING :am;
ALTER TABLE qs_skip SET (autovacuum_enabled = off);
INSERT INTO qs_skip SELECT g, repeat('s', 100) FROM generate_series(1, 10000) g;
VACUUM qs_skip;
SELECT count(*) > 40 AS many_pages, bool_and(vm_all_visible) AS all_visible,
       bool_or(vm_all_frozen) AS any_frozen
  FROM quickstep.page_visibility('qs_skip');
SELECT relfrozenxid AS fx1 FROM pg_class WHERE relname = 'qs_skip' \gset
SELECT txid_current() > 0 AS burn;
SET vacuum_freeze_min_age = 0;
VACUUM qs_skip;
SELECT relfrozenxid = :'fx1'::xid AS relfrozenxid_kept FROM pg_class WHERE relname = 'qs_skip';
SELECT count(*) FILTER (WHERE vm_all_frozen) AS frozen_pages,
       bool_and(vm_all_visible) AS all_visible
  FROM quickstep.page_visibility('qs_skip');
SELECT reltuples BETWEEN 9000 AND 11000 AS reltuples_estimated FROM pg_class WHERE relname = 'qs_skip';
VACUUM (DISABLE_PAGE_SKIPPING) qs_skip;
SELECT bool_and(vm_all_frozen) AS all_frozen FROM quickstep.page_visibility('qs_skip');
SELECT age(relfrozenxid) < age(:'fx1'::xid) AS relfrozenxid_advanced,
       reltuples = 10000 AS reltuples_exact
  FROM pg_class WHERE relname = 'qs_skip';
RESET vacuum_freeze_min_age;
UPDATE qs_skip SET id = -id WHERE id % 500 = 0;
VACUUM (FREEZE) qs_skip;
SELECT bool_and(vm_all_frozen) AS all_frozen FROM quickstep.page_visibility('qs_skip');
SELECT relfrozenxid AS fx2 FROM pg_class WHERE relname = 'qs_skip' \gset
SELECT txid_current() > 0 AS burn;
VACUUM qs_skip;
SELECT age(relfrozenxid) < age(:'fx2'::xid) AS relfrozenxid_advanced
  FROM pg_class WHERE relname = 'qs_skip';
SELECT quickstep.check_table('qs_skip');
DROP TABLE qs_skip;

-- tables that are not quickstep row tables are refused
CREATE TABLE qv_heap (a int) USING heap;
SELECT * FROM quickstep.page_visibility('qv_heap');

DROP TABLE qv, qv_heap;
DROP FUNCTION qv_flags(), qv_blk(int), qv_flag(bigint);
