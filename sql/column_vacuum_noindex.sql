-- VACUUM without index cleanup lets relfrozenxid and relminmxid pass
-- deleted main rows (issue 12, F9 of the r3b review; src/column/README.md
-- section 4.1, VACUUM): their delete-map entries are marked dead with no
-- xid (heap's LP_DEAD items), the index entries stay, the rows stay
-- invisible; a later VACUUM with index cleanup removes the index entries
-- and marks the entries removed.  Before, such entries kept the deleter's
-- xid (and a multixact) until a VACUUM with index cleanup: relfrozenxid
-- stayed at or before the deleter for ever on a table with
-- vacuum_index_cleanup = off.  Compared with a heap twin throughout.
CREATE SCHEMA column_vacuum_noindex;
SET search_path = column_vacuum_noindex, public;
CREATE EXTENSION pageinspect;

CREATE TABLE c (id int PRIMARY KEY, v int) USING quickstep_column
  WITH (quickstep.rows_per_block = 1000);
CREATE INDEX c_v ON c (v);
CREATE TABLE h (id int PRIMARY KEY, v int);
CREATE INDEX h_v ON h (v);
-- main rows only: three sealed blocks
SET quickstep.column_delta_rows = 0;
INSERT INTO c SELECT g, g % 10 FROM generate_series(1, 3000) g;
RESET quickstep.column_delta_rows;
INSERT INTO h SELECT g, g % 10 FROM generate_series(1, 3000) g;
VACUUM (FREEZE) c;
VACUUM (FREEZE) h;
SELECT count(DISTINCT block_id) AS blocks FROM quickstep.blocks('c');

-- every index's items, dead-flagged ones included (an index scan may kill
-- entries of dead rows, which stay until a VACUUM with index cleanup)
CREATE FUNCTION index_items(idx regclass) RETURNS bigint LANGUAGE sql AS $$
  SELECT coalesce(sum(s.live_items + s.dead_items), 0)
  FROM generate_series(1, (pg_relation_size(idx) / 8192)::int - 1) b,
       LATERAL bt_page_stats(idx::text, b) s
  WHERE s.type = 'l'
$$;
CREATE FUNCTION state(OUT rel text, OUT passed_deleter boolean,
                      OUT passed_multi boolean, OUT pkey_items bigint,
                      OUT v_items bigint, OUT rows bigint, OUT sum bigint)
  RETURNS SETOF record LANGUAGE plpgsql AS $$
DECLARE
  r text;
BEGIN
  FOREACH r IN ARRAY ARRAY['c', 'h'] LOOP
    rel := r;
    SELECT age(k.relfrozenxid) < age(d.xid),
           mxid_age(k.relminmxid) < mxid_age(d.multi)
      INTO passed_deleter, passed_multi
      FROM pg_class k, deleters d
      WHERE k.oid = ('column_vacuum_noindex.' || r)::regclass AND d.rel = r;
    pkey_items := index_items(('column_vacuum_noindex.' || r || '_pkey')::regclass);
    v_items := index_items(('column_vacuum_noindex.' || r || '_v')::regclass);
    EXECUTE format('SELECT count(*), sum(id) FROM column_vacuum_noindex.%I', r)
      INTO rows, sum;
    RETURN NEXT;
  END LOOP;
END
$$;
CREATE TABLE deleters (rel text, xid xid, multi xid);

-- the deleters: a DELETE of every 7th row and of all of the third block,
-- and a row locked by a transaction and deleted by its subtransaction
-- (its xmax a multixact: the first one after the checkpoint)
CHECKPOINT;
SELECT next_multixact_id AS m0 FROM pg_control_checkpoint() \gset
BEGIN;
SELECT id FROM c WHERE id = 5 FOR SHARE;
SAVEPOINT s;
DELETE FROM c WHERE id = 5;
RELEASE s;
DELETE FROM c WHERE id % 7 = 0 OR id > 2000;
INSERT INTO deleters SELECT 'c', txid_current()::text::xid, :'m0';
COMMIT;
CHECKPOINT;
SELECT next_multixact_id AS m1 FROM pg_control_checkpoint() \gset
BEGIN;
SELECT id FROM h WHERE id = 5 FOR SHARE;
SAVEPOINT s;
DELETE FROM h WHERE id = 5;
RELEASE s;
DELETE FROM h WHERE id % 7 = 0 OR id > 2000;
INSERT INTO deleters SELECT 'h', txid_current()::text::xid, :'m1';
COMMIT;
-- each transaction made one multixact
SELECT :'m1'::text::bigint - :'m0'::text::bigint AS multis_between;

-- no index cleanup: relfrozenxid passes the deleter, relminmxid the
-- multixact (before: false, false on c); the index entries stay
VACUUM (INDEX_CLEANUP off, FREEZE) c;
VACUUM (INDEX_CLEANUP off, FREEZE) h;
SELECT * FROM state();
SELECT quickstep.check_table('c') IS NOT NULL AS checked;
-- the block whose rows are all dead keeps its pages: index entries name them
SELECT count(DISTINCT block_id) AS blocks FROM quickstep.blocks('c');
-- reltuples counts the rows left
SELECT c.reltuples = h.reltuples AS same_reltuples
  FROM pg_class c, pg_class h WHERE c.oid = 'c'::regclass AND h.oid = 'h'::regclass;
-- the rows stay invisible: index scans, bitmap scans, TID lookups, DML
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT * FROM c WHERE id IN (5, 7, 2500);
SELECT * FROM c WHERE id IN (5, 7, 2500);
SELECT count(*), sum(id) FROM c WHERE v = 0;
SELECT count(*), sum(id) FROM h WHERE v = 0;
SET enable_indexscan = off;
SET enable_bitmapscan = on;
SELECT count(*), sum(id) FROM c WHERE v = 3;
SELECT count(*), sum(id) FROM h WHERE v = 3;
RESET enable_seqscan;
RESET enable_indexscan;
RESET enable_bitmapscan;
UPDATE c SET v = -1 WHERE id IN (5, 7, 2500);
DELETE FROM c WHERE id IN (5, 7, 2500);
SELECT * FROM c WHERE id IN (5, 7, 2500) FOR UPDATE;
-- a unique check meets the dead rows' index entries: no conflict
INSERT INTO c VALUES (7, 70), (2500, 70);
INSERT INTO h VALUES (7, 70), (2500, 70);
SELECT quickstep.check_table('c') IS NOT NULL AS checked;

-- a VACUUM with index cleanup removes the index entries and the entries
-- (the ordinary state: the all-dead block is retired, its pages go back)
VACUUM c;
VACUUM h;
SELECT * FROM state();
SELECT quickstep.check_table('c') IS NOT NULL AS checked;
SELECT count(DISTINCT block_id) AS blocks FROM quickstep.blocks('c');
VACUUM (FREEZE) c;
VACUUM (FREEZE) h;
SELECT * FROM state();
SELECT quickstep.check_table('c') IS NOT NULL AS checked;
SELECT count(*), sum(id), sum(v) FROM c;
SELECT count(*), sum(id), sum(v) FROM h;

-- the reloption: every VACUUM without index cleanup, anti-wraparound
-- (FREEZE) ones included, still passes new deleters
ALTER TABLE c SET (vacuum_index_cleanup = off);
ALTER TABLE h SET (vacuum_index_cleanup = off);
BEGIN;
DELETE FROM c WHERE id BETWEEN 1000 AND 1100;
UPDATE deleters SET xid = txid_current()::text::xid WHERE rel = 'c';
COMMIT;
BEGIN;
DELETE FROM h WHERE id BETWEEN 1000 AND 1100;
UPDATE deleters SET xid = txid_current()::text::xid WHERE rel = 'h';
COMMIT;
VACUUM (FREEZE) c;
VACUUM (FREEZE) h;
SELECT * FROM state();
SELECT quickstep.check_table('c') IS NOT NULL AS checked;
-- twice without index cleanup: the dead entries stay dead
VACUUM (FREEZE) c;
SELECT * FROM state() WHERE rel = 'c';
SELECT quickstep.check_table('c') IS NOT NULL AS checked;
ALTER TABLE c RESET (vacuum_index_cleanup);
ALTER TABLE h RESET (vacuum_index_cleanup);
VACUUM c;
VACUUM h;
SELECT * FROM state();
SELECT quickstep.check_table('c') IS NOT NULL AS checked;

DROP EXTENSION pageinspect;
DROP SCHEMA column_vacuum_noindex CASCADE;
