--
-- csbtree VACUUM: empty leaves are deleted (unlinked from their siblings,
-- their parent's downlink removed) and recycled through the free space map
-- once no snapshot can reach them, so repeated delete-all / VACUUM /
-- reinsert cycles do not grow the index.  Results stay those of btree.
--
SET enable_seqscan = off;
SET enable_bitmapscan = off;
CREATE TABLE cv (k int, t text) WITH (autovacuum_enabled = off);
CREATE INDEX cv_k ON cv USING csbtree (k);
CREATE INDEX cv_t ON cv USING csbtree (t COLLATE "C");
CREATE TABLE cvb (k int, t text) WITH (autovacuum_enabled = off);
CREATE INDEX cvb_k ON cvb (k);
CREATE TABLE cv_size (cycle int, step text, k_bytes bigint, t_bytes bigint);

-- cycle 1: fill, empty, VACUUM (deletes the empty leaves), let an xid
-- complete, VACUUM again (recycles the pages the first one deleted)
INSERT INTO cv SELECT (g * 7919) % 30000, md5(((g * 7919) % 30000)::text)
  FROM generate_series(1, 30000) g;
INSERT INTO cvb SELECT * FROM cv;
INSERT INTO cv_size SELECT 1, 'filled', pg_relation_size('cv_k'), pg_relation_size('cv_t');
SELECT levels, leaf_tuples FROM quickstep.check_index('cv_k');
SELECT levels, leaf_tuples FROM quickstep.check_index('cv_t');
DELETE FROM cv WHERE k % 1000 <> 7;
DELETE FROM cvb WHERE k % 1000 <> 7;
VACUUM cv;
SELECT pg_current_xact_id() IS NOT NULL AS xid_done;
VACUUM cv;
SELECT levels, leaf_tuples FROM quickstep.check_index('cv_k');
SELECT levels, leaf_tuples FROM quickstep.check_index('cv_t');
SELECT (SELECT count(*) FROM (SELECT k, t FROM cv WHERE k >= 0 EXCEPT ALL SELECT k, t FROM cvb) d) AS missing_in_btree,
       (SELECT count(*) FROM (SELECT k, t FROM cvb EXCEPT ALL SELECT k, t FROM cv WHERE k >= 0) d) AS missing_in_csbtree;
SELECT array_agg(k ORDER BY k DESC) FROM (SELECT k FROM cv WHERE k < 20000 ORDER BY k DESC) s;
SELECT count(*), min(t), max(t) FROM cv WHERE t > '8';
DELETE FROM cv;
DELETE FROM cvb;
VACUUM cv;
SELECT pg_current_xact_id() IS NOT NULL AS xid_done;
VACUUM cv;
INSERT INTO cv_size SELECT 1, 'emptied', pg_relation_size('cv_k'), pg_relation_size('cv_t');
-- what is left linked: one leaf per parent (the rightmost child stays)
SELECT levels, pages, leaf_tuples, pg_relation_size('cv_k') / 8192 AS blocks FROM quickstep.check_index('cv_k');
SELECT levels, pages, leaf_tuples, pg_relation_size('cv_t') / 8192 AS blocks FROM quickstep.check_index('cv_t');

-- cycle 2: fill, empty, VACUUM (deletes the empty leaves), let an xid
-- complete, VACUUM again (recycles the pages the first one deleted)
INSERT INTO cv SELECT (g * 7919) % 30000, md5(((g * 7919) % 30000)::text)
  FROM generate_series(1, 30000) g;
INSERT INTO cvb SELECT * FROM cv;
INSERT INTO cv_size SELECT 2, 'filled', pg_relation_size('cv_k'), pg_relation_size('cv_t');
SELECT levels, leaf_tuples FROM quickstep.check_index('cv_k');
SELECT levels, leaf_tuples FROM quickstep.check_index('cv_t');
DELETE FROM cv WHERE k % 1000 <> 7;
DELETE FROM cvb WHERE k % 1000 <> 7;
VACUUM cv;
SELECT pg_current_xact_id() IS NOT NULL AS xid_done;
VACUUM cv;
SELECT levels, leaf_tuples FROM quickstep.check_index('cv_k');
SELECT levels, leaf_tuples FROM quickstep.check_index('cv_t');
SELECT (SELECT count(*) FROM (SELECT k, t FROM cv WHERE k >= 0 EXCEPT ALL SELECT k, t FROM cvb) d) AS missing_in_btree,
       (SELECT count(*) FROM (SELECT k, t FROM cvb EXCEPT ALL SELECT k, t FROM cv WHERE k >= 0) d) AS missing_in_csbtree;
SELECT array_agg(k ORDER BY k DESC) FROM (SELECT k FROM cv WHERE k < 20000 ORDER BY k DESC) s;
SELECT count(*), min(t), max(t) FROM cv WHERE t > '8';
DELETE FROM cv;
DELETE FROM cvb;
VACUUM cv;
SELECT pg_current_xact_id() IS NOT NULL AS xid_done;
VACUUM cv;
INSERT INTO cv_size SELECT 2, 'emptied', pg_relation_size('cv_k'), pg_relation_size('cv_t');
-- what is left linked: one leaf per parent (the rightmost child stays)
SELECT levels, pages, leaf_tuples, pg_relation_size('cv_k') / 8192 AS blocks FROM quickstep.check_index('cv_k');
SELECT levels, pages, leaf_tuples, pg_relation_size('cv_t') / 8192 AS blocks FROM quickstep.check_index('cv_t');

-- cycle 3: fill, empty, VACUUM (deletes the empty leaves), let an xid
-- complete, VACUUM again (recycles the pages the first one deleted)
INSERT INTO cv SELECT (g * 7919) % 30000, md5(((g * 7919) % 30000)::text)
  FROM generate_series(1, 30000) g;
INSERT INTO cvb SELECT * FROM cv;
INSERT INTO cv_size SELECT 3, 'filled', pg_relation_size('cv_k'), pg_relation_size('cv_t');
SELECT levels, leaf_tuples FROM quickstep.check_index('cv_k');
SELECT levels, leaf_tuples FROM quickstep.check_index('cv_t');
DELETE FROM cv WHERE k % 1000 <> 7;
DELETE FROM cvb WHERE k % 1000 <> 7;
VACUUM cv;
SELECT pg_current_xact_id() IS NOT NULL AS xid_done;
VACUUM cv;
SELECT levels, leaf_tuples FROM quickstep.check_index('cv_k');
SELECT levels, leaf_tuples FROM quickstep.check_index('cv_t');
SELECT (SELECT count(*) FROM (SELECT k, t FROM cv WHERE k >= 0 EXCEPT ALL SELECT k, t FROM cvb) d) AS missing_in_btree,
       (SELECT count(*) FROM (SELECT k, t FROM cvb EXCEPT ALL SELECT k, t FROM cv WHERE k >= 0) d) AS missing_in_csbtree;
SELECT array_agg(k ORDER BY k DESC) FROM (SELECT k FROM cv WHERE k < 20000 ORDER BY k DESC) s;
SELECT count(*), min(t), max(t) FROM cv WHERE t > '8';
DELETE FROM cv;
DELETE FROM cvb;
VACUUM cv;
SELECT pg_current_xact_id() IS NOT NULL AS xid_done;
VACUUM cv;
INSERT INTO cv_size SELECT 3, 'emptied', pg_relation_size('cv_k'), pg_relation_size('cv_t');
-- what is left linked: one leaf per parent (the rightmost child stays)
SELECT levels, pages, leaf_tuples, pg_relation_size('cv_k') / 8192 AS blocks FROM quickstep.check_index('cv_k');
SELECT levels, pages, leaf_tuples, pg_relation_size('cv_t') / 8192 AS blocks FROM quickstep.check_index('cv_t');

-- the index does not grow: every cycle after the first ends at the size
-- of the first, filled and emptied alike
SELECT cycle, step, k_bytes = (SELECT k_bytes FROM cv_size WHERE cycle = 1 AND step = s.step) AS k_same,
       t_bytes = (SELECT t_bytes FROM cv_size WHERE cycle = 1 AND step = s.step) AS t_same
  FROM cv_size s ORDER BY cycle, step;
-- the free pages are recorded in the index's free space map
SELECT pg_relation_size('cv_k') / 8192 > 10 AS has_pages,
       pg_relation_size('cv_k', 'fsm') > 0 AS has_fsm;
DROP TABLE cv, cvb, cv_size;

