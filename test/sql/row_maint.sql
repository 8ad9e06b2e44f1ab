--
-- Row layout :am (set by the caller, sql/<layout>_maint.sql): ANALYZE,
-- VACUUM (dead records, index entries, free space reuse, tail truncation,
-- freezing), TRUNCATE, VACUUM FULL, CLUSTER, ALTER TABLE rewrites,
-- SET TABLESPACE, check_table.
--
CREATE TABLE qm (id int PRIMARY KEY, v text) USING :am;
INSERT INTO qm SELECT g, repeat('m', 50) || g FROM generate_series(1, 20000) g;

-- ANALYZE samples the table
ANALYZE qm;
SELECT relpages > 0 AS has_pages, reltuples FROM pg_class WHERE relname = 'qm';
SELECT attname, null_frac, n_distinct FROM pg_stats WHERE tablename = 'qm' ORDER BY attname;

-- VACUUM removes dead records and their index entries, and the space is reused
DELETE FROM qm WHERE id % 2 = 0;
SELECT pg_relation_size('qm') / 8192 AS pages_before;
VACUUM qm;
SELECT n_live_tup, n_dead_tup FROM pg_stat_user_tables WHERE relname = 'qm';
SELECT reltuples FROM pg_class WHERE relname = 'qm';
SELECT quickstep.check_table('qm');
INSERT INTO qm SELECT g, repeat('m', 50) || g FROM generate_series(2, 20000, 2) g;
SELECT pg_relation_size('qm') / 8192 AS pages_after_refill;
SELECT count(*), sum(id) FROM qm;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT count(*), sum(id) FROM qm WHERE id > 0;
RESET enable_seqscan;
RESET enable_bitmapscan;

-- empty tail pages are truncated
DELETE FROM qm WHERE id > 1000;
VACUUM qm;
SELECT pg_relation_size('qm') / 8192 AS pages_after_truncation;
SELECT count(*) FROM qm;
DELETE FROM qm;
VACUUM qm;
SELECT pg_relation_size('qm') AS empty_size;
INSERT INTO qm VALUES (1, 'again');
SELECT * FROM qm;

-- freezing sets heap's frozen bits (pageinspect reads NSM pages: they are
-- heap-format slotted pages) and advances relfrozenxid
CREATE EXTENSION pageinspect;
-- the table's pages but a column table's block pages (special space
-- "QSCP", src/column/README.md §2): not slotted pages, and their bytes
-- hold the rows' xids (origin xmins), which differ from run to run
CREATE FUNCTION slotted_pages(rel regclass) RETURNS SETOF int LANGUAGE sql AS $$
  SELECT b FROM generate_series(0, (pg_relation_size(rel) / 8192 - 1)::int) b
   WHERE substr(get_raw_page(rel::text, b), 8177, 4) <> '\x51534350'::bytea
$$;
INSERT INTO qm SELECT g, 'f' FROM generate_series(2, 1000) g;
SELECT relfrozenxid AS frozen_before FROM pg_class WHERE relname = 'qm' \gset
SELECT count(*) FILTER (WHERE t_infomask & 768 = 768) AS frozen, count(*) AS records
  FROM slotted_pages('qm') b,
       heap_page_items(get_raw_page('qm', b::int)) WHERE lp_flags = 1;
SELECT txid_current() > 0 AS burn;
VACUUM (FREEZE) qm;
SELECT age(relfrozenxid) < age(:'frozen_before'::xid) AS advanced FROM pg_class WHERE relname = 'qm';
SELECT count(*) FILTER (WHERE t_infomask & 768 = 768) AS frozen, count(*) AS records
  FROM slotted_pages('qm') b,
       heap_page_items(get_raw_page('qm', b::int)) WHERE lp_flags = 1;
VACUUM (FREEZE, INDEX_CLEANUP off, TRUNCATE off) qm;
VACUUM (ANALYZE, VERBOSE off) qm;

-- TRUNCATE (new storage), in a transaction that rolls back too
BEGIN;
TRUNCATE qm;
SELECT count(*) FROM qm;
ROLLBACK;
SELECT count(*) FROM qm;
TRUNCATE qm;
SELECT count(*), pg_relation_size('qm') FROM qm;

-- VACUUM FULL and CLUSTER keep live rows and drop dead ones
INSERT INTO qm SELECT g, md5(g::text) FROM generate_series(1, 5000) g;
UPDATE qm SET v = upper(v) WHERE id % 3 = 0;
DELETE FROM qm WHERE id % 4 = 0;
SELECT count(*), sum(id), md5(string_agg(v, ',' ORDER BY id)) FROM qm;
VACUUM FULL qm;
SELECT count(*), sum(id), md5(string_agg(v, ',' ORDER BY id)) FROM qm;
CREATE INDEX qm_v ON qm (v);
CLUSTER qm USING qm_v;
SELECT count(*), sum(id), md5(string_agg(v, ',' ORDER BY id)) FROM qm;
-- clustered: physical order follows v
SELECT count(*) FROM (SELECT v, lag(v) OVER (ORDER BY ctid) AS prev FROM qm) s WHERE prev > v;
SET enable_seqscan = off;
SELECT count(*) FROM qm WHERE v > 'a';
RESET enable_seqscan;
SELECT quickstep.check_table('qm');

-- ALTER TABLE rewrites
ALTER TABLE qm ALTER COLUMN id TYPE bigint;
ALTER TABLE qm ADD COLUMN extra int DEFAULT 7;
ALTER TABLE qm ADD COLUMN vol float8 DEFAULT random();
SELECT count(*), sum(id), sum(extra), count(vol) FROM qm;
ALTER TABLE qm DROP COLUMN vol;
SELECT am.amname = :'am' AS same_am FROM pg_class c JOIN pg_am am ON am.oid = c.relam WHERE c.relname = 'qm';

-- SET TABLESPACE copies the storage
SET allow_in_place_tablespaces = on;
CREATE TABLESPACE regress_qs_row_ts LOCATION '';
ALTER TABLE qm SET TABLESPACE regress_qs_row_ts;
SELECT count(*), sum(id) FROM qm;
ALTER TABLE qm SET TABLESPACE pg_default;
SELECT count(*), sum(id) FROM qm;
DROP TABLESPACE regress_qs_row_ts;

-- ALTER TABLE ... SET ACCESS METHOD (PG 15 has it): heap <-> the layout
CREATE TABLE qam (a int, b text) USING heap;
INSERT INTO qam SELECT g, 'a' || g FROM generate_series(1, 1000) g;
ALTER TABLE qam SET ACCESS METHOD :am;
SELECT count(*), sum(a) FROM qam;
ALTER TABLE qam SET ACCESS METHOD heap;
SELECT count(*), sum(a) FROM qam;

-- materialized views
CREATE MATERIALIZED VIEW qmv USING :am AS SELECT id, v FROM qm WHERE id < 100;
CREATE UNIQUE INDEX ON qmv (id);
REFRESH MATERIALIZED VIEW qmv;
REFRESH MATERIALIZED VIEW CONCURRENTLY qmv;
SELECT count(*) FROM qmv;

-- opportunistic pruning: repeated updates without VACUUM stay within the
-- pages heap needs (dead versions lose their storage when a scan finds a
-- nearly full page; their slots stay dead until VACUUM)
CREATE TABLE qpr (id int PRIMARY KEY, n int, pad text) USING :am
  WITH (autovacuum_enabled = off);
INSERT INTO qpr SELECT g, 0, repeat('x', 100) FROM generate_series(1, 1000) g;
DO $$
BEGIN
  FOR i IN 1 .. 30 LOOP
    UPDATE qpr SET n = n + 1 WHERE id % 10 = i % 10;
    COMMIT;
    PERFORM count(*) FROM qpr;
  END LOOP;
END $$;
SELECT pg_relation_size('qpr') / 8192 < 40 AS bounded, count(*), sum(n) FROM qpr;
SELECT count(*) FILTER (WHERE lp_flags = 3) > 0 AS has_pruned_slots
  FROM slotted_pages('qpr') b,
       heap_page_items(get_raw_page('qpr', b::int));
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT count(*), sum(n) FROM qpr WHERE id > 0;
RESET enable_seqscan;
RESET enable_bitmapscan;
VACUUM qpr;
SELECT count(*) FILTER (WHERE lp_flags = 3) AS dead_slots_after_vacuum
  FROM slotted_pages('qpr') b,
       heap_page_items(get_raw_page('qpr', b::int));
SELECT quickstep.check_table('qpr');
DROP TABLE qpr;

-- check_table refuses what it cannot check
SELECT quickstep.check_table('qam');
SELECT quickstep.check_table('qm_v');

DROP MATERIALIZED VIEW qmv;
DROP TABLE qm, qam;
DROP FUNCTION slotted_pages(regclass);
DROP EXTENSION pageinspect;
