-- quickstep.merge(rel): the committed rows of a column table's delta that
-- every snapshot sees move into a compressed main block, in the caller's
-- transaction.  THE RULE: a merge is invisible.  Every statement below runs
-- on a column table c and on a heap twin h; after every step that matters
-- their contents are compared (EXCEPT ALL both ways, counts, sums) and
-- check_table must be clean.  Only ctid (and xmin) of moved rows may change.
CREATE SCHEMA column_merge;
SET search_path = column_merge, public;
-- statements after merge() in its transaction read and change the rows it
-- moved: refused by default (src/merge/README.md §2), allowed for this test
SET quickstep.debug_merge_hold = on;
SET quickstep.column_delta_rows = 1000;	-- small inserts stay in the delta
SET max_parallel_workers_per_gather = 0;

CREATE TABLE h (id int NOT NULL, k int, t text, n numeric, big text);
CREATE TABLE c (LIKE h) USING quickstep_column;
-- no autovacuum/autoanalyze snapshot may hold rows back from a merge
ALTER TABLE h SET (autovacuum_enabled = off);
ALTER TABLE c SET (autovacuum_enabled = off);

-- run one statement ({t} = the table) on h, then on c; both row counts
CREATE FUNCTION twin(q text) RETURNS text LANGUAGE plpgsql AS $f$
DECLARE nh bigint; nc bigint;
BEGIN
  EXECUTE replace(q, '{t}', 'h'); GET DIAGNOSTICS nh = ROW_COUNT;
  EXECUTE replace(q, '{t}', 'c'); GET DIAGNOSTICS nc = ROW_COUNT;
  IF nh = nc THEN RETURN nc || ' rows'; END IF;
  RETURN format('DIFFER: heap %s rows, column %s rows', nh, nc);
END $f$;

-- c's contents against h's: 'same ...' or what differs
CREATE FUNCTION same() RETURNS text LANGUAGE plpgsql AS $f$
DECLARE ch bigint; hc bigint; nc bigint; nh bigint; sc text; sh text;
BEGIN
  SELECT count(*) INTO ch FROM (SELECT id, k, t, n, big FROM c EXCEPT ALL SELECT id, k, t, n, big FROM h) x;
  SELECT count(*) INTO hc FROM (SELECT id, k, t, n, big FROM h EXCEPT ALL SELECT id, k, t, n, big FROM c) x;
  SELECT count(*), sum(id) || '/' || coalesce(sum(k), 0) || '/' || count(t) || '/' || coalesce(sum(n), 0) || '/' || coalesce(sum(length(big)), 0)
    INTO nc, sc FROM c;
  SELECT count(*), sum(id) || '/' || coalesce(sum(k), 0) || '/' || count(t) || '/' || coalesce(sum(n), 0) || '/' || coalesce(sum(length(big)), 0)
    INTO nh, sh FROM h;
  IF ch = 0 AND hc = 0 AND nc = nh AND sc IS NOT DISTINCT FROM sh THEN
    RETURN format('same: %s rows, sums %s', nc, sc);
  END IF;
  RETURN format('DIFFER: c-h %s, h-c %s, rows %s/%s (heap), sums %s / %s (heap)', ch, hc, nc, nh, sc, sh);
END $f$;

-- rows of c whose ctid is a virtual TID (a row in a main block)
CREATE FUNCTION in_main() RETURNS bigint LANGUAGE sql AS
$$ SELECT count(*) FROM c WHERE (ctid::text::point)[0] >= 2147483648 $$;

-- where each row of c is now, to see which rows a merge moved
CREATE TABLE loc (id int, old tid);
CREATE FUNCTION remember() RETURNS void LANGUAGE sql AS
$$ TRUNCATE loc; INSERT INTO loc SELECT id, ctid FROM c; $$;
CREATE FUNCTION relocated() RETURNS bigint LANGUAGE sql AS
$$ SELECT count(*) FROM c JOIN loc USING (id) WHERE c.ctid <> loc.old $$;

-- 1. small inserts (several transactions, NULLs), all in the delta
SELECT twin($$INSERT INTO {t} SELECT i, i % 10, CASE WHEN i % 7 = 0 THEN NULL ELSE 't' || i % 13 END,
  CASE WHEN i % 5 = 0 THEN NULL ELSE i / 4.0 END, NULL FROM generate_series(1, 200) i$$);
SELECT twin($$INSERT INTO {t} VALUES (201, NULL, NULL, NULL, NULL), (202, 2, '', 0, '')$$);
SELECT twin($$INSERT INTO {t} SELECT i, -i, 'x' || i, -i, 'short' FROM generate_series(203, 300) i$$);
SELECT same(), in_main(), quickstep.check_table('c') IS NOT NULL AS checked;

-- 2. the merge moves every quiet row; a second one finds none
SELECT remember();
SELECT quickstep.merge('c') AS moved;
SELECT same(), in_main(), relocated(), quickstep.check_table('c') IS NOT NULL AS checked;
SELECT quickstep.merge('c') AS moved_again;
SELECT same(), in_main(), relocated();

-- 3. UPDATE, DELETE and SELECT FOR UPDATE of moved rows
SELECT twin($$UPDATE {t} SET k = k + 1000, t = t || '+' WHERE id % 10 = 1$$);
SELECT twin($$DELETE FROM {t} WHERE id % 10 = 2$$);
SELECT twin($$UPDATE {t} SET n = NULL WHERE id BETWEEN 100 AND 105 RETURNING *$$);
SELECT twin($$DELETE FROM {t} WHERE id BETWEEN 150 AND 152 RETURNING id, k, t$$);
BEGIN;
SELECT twin($$SELECT id FROM {t} WHERE id BETWEEN 20 AND 30 ORDER BY id FOR UPDATE$$);
SELECT twin($$SELECT id FROM {t} WHERE id BETWEEN 31 AND 40 FOR KEY SHARE$$);
SELECT twin($$UPDATE {t} SET k = 7 WHERE id = 25$$);
COMMIT;
SELECT same(), quickstep.check_table('c') IS NOT NULL AS checked;
-- the same row twice in one statement: a self-join on the key
SELECT count(*) FROM c a JOIN c b USING (id) WHERE a.ctid <> b.ctid;
SELECT count(*) FROM c a JOIN c b ON a.ctid = b.ctid;
-- a TID scan reaches a moved row by its new ctid
SELECT id, k, t FROM c WHERE ctid = (SELECT ctid FROM c WHERE id = 33);

-- 4. a second merge: the updated rows' new versions and new inserts
SELECT twin($$INSERT INTO {t} SELECT i, i % 3, NULL, i, NULL FROM generate_series(301, 340) i$$);
SELECT remember();
SELECT quickstep.merge('c') AS moved;
SELECT same(), relocated(), quickstep.check_table('c') IS NOT NULL AS checked;
SELECT count(*) AS left_in_delta FROM c WHERE (ctid::text::point)[0] < 2147483648;

-- 5. rows locked or changed by an open transaction stay in the delta
SELECT twin($$INSERT INTO {t} SELECT i, 5, 'lock', NULL, NULL FROM generate_series(341, 360) i$$);
BEGIN;
SELECT twin($$SELECT id FROM {t} WHERE id BETWEEN 341 AND 345 FOR UPDATE$$);
SELECT twin($$SELECT id FROM {t} WHERE id BETWEEN 346 AND 348 FOR SHARE$$);
SELECT twin($$UPDATE {t} SET k = 6 WHERE id = 349$$);
SELECT twin($$DELETE FROM {t} WHERE id = 350$$);
SELECT twin($$INSERT INTO {t} VALUES (361, 1, 'mine', 1, NULL)$$);
SELECT remember();
-- moves 351..360 only: 341..348 locked, 349 and 350 changed, 361 not committed
SELECT quickstep.merge('c') AS moved;
SELECT same(), relocated();
SELECT id FROM c JOIN loc USING (id) WHERE c.ctid = loc.old AND id > 340 ORDER BY id;
SELECT twin($$UPDATE {t} SET k = k + 1 WHERE id BETWEEN 341 AND 361$$);
COMMIT;
SELECT same(), quickstep.check_table('c') IS NOT NULL AS checked;

-- 6. wide TOASTed values (> 8 kB): compressible and not
SELECT twin($$INSERT INTO {t} SELECT i, i, 'wide', i, repeat('abc' || i, 5000) FROM generate_series(401, 405) i$$);
INSERT INTO h SELECT i, i, 'rand', i, (SELECT string_agg(md5(i || '/' || g), '') FROM generate_series(1, 400) g)
  FROM generate_series(406, 410) i;
INSERT INTO c SELECT * FROM h WHERE id BETWEEN 406 AND 410;
SELECT id, length(big), md5(big) FROM c WHERE id > 400 ORDER BY id;
SELECT remember();
SELECT quickstep.merge('c') > 0 AS moved;
SELECT same(), quickstep.check_table('c') IS NOT NULL AS checked;
SELECT count(*) AS wide_moved FROM c JOIN loc USING (id) WHERE c.ctid <> loc.old AND id > 400;
SELECT id, length(big), md5(big) FROM c WHERE id > 400 ORDER BY id;
SELECT (SELECT md5(string_agg(big, '' ORDER BY id)) FROM c WHERE id > 400) =
       (SELECT md5(string_agg(big, '' ORDER BY id)) FROM h WHERE id > 400) AS wide_equal;
-- update beside a moved wide value, update the value, delete one
SELECT twin($$UPDATE {t} SET k = -k WHERE id IN (401, 406)$$);
SELECT twin($$UPDATE {t} SET big = big || 'z' WHERE id IN (402, 407)$$);
SELECT twin($$DELETE FROM {t} WHERE id IN (403, 408)$$);
SELECT quickstep.merge('c') > 0 AS moved;
SELECT same(), quickstep.check_table('c') IS NOT NULL AS checked;
VACUUM c;
SELECT same(), quickstep.check_table('c') IS NOT NULL AS checked;
SELECT id, length(big), md5(big) FROM c WHERE id > 400 ORDER BY id;

-- 7. a unique index: a duplicate of a moved row fails as on heap
CREATE UNIQUE INDEX h_id ON h (id);
CREATE UNIQUE INDEX c_id ON c (id);
SELECT twin($$INSERT INTO {t} SELECT i, 0, 'u', NULL, NULL FROM generate_series(501, 520) i$$);
SELECT quickstep.merge('c') AS moved;
SELECT same(), quickstep.check_table('c') IS NOT NULL AS checked;
INSERT INTO h VALUES (505, 0, 'dup', NULL, NULL);
INSERT INTO c VALUES (505, 0, 'dup', NULL, NULL);
INSERT INTO h VALUES (33, 0, 'dup', NULL, NULL);
INSERT INTO c VALUES (33, 0, 'dup', NULL, NULL);
UPDATE h SET id = 506 WHERE id = 507;
UPDATE c SET id = 506 WHERE id = 507;
SELECT twin($$INSERT INTO {t} VALUES (508, 0, 'x', NULL, NULL) ON CONFLICT (id) DO NOTHING$$);
SELECT twin($$INSERT INTO {t} VALUES (509, 0, 'x', NULL, NULL) ON CONFLICT (id) DO UPDATE SET t = 'upsert', k = {t}.k + 1$$);
SELECT twin($$INSERT INTO {t} VALUES (44, 0, 'x', NULL, NULL) ON CONFLICT (id) DO UPDATE SET t = 'upsert2'$$);
SELECT same(), quickstep.check_table('c') IS NOT NULL AS checked;
-- delete a moved row and insert its key again in one transaction
BEGIN;
SELECT twin($$DELETE FROM {t} WHERE id = 510$$);
SELECT twin($$INSERT INTO {t} VALUES (510, 1, 'again', NULL, NULL)$$);
COMMIT;
SELECT quickstep.merge('c') > 0 AS moved;
INSERT INTO c VALUES (510, 0, 'dup', NULL, NULL);
SELECT same(), quickstep.check_table('c') IS NOT NULL AS checked;
-- a foreign key to moved rows; rows key-share locked by finished
-- transactions (the RI checks) move
CREATE TABLE fk_c (ref int REFERENCES c (id));
INSERT INTO fk_c VALUES (511), (512);
SELECT twin($$INSERT INTO {t} SELECT i, 0, 'fk', NULL, NULL FROM generate_series(521, 525) i$$);
INSERT INTO fk_c VALUES (521), (522);
SELECT quickstep.merge('c') AS moved_after_fk;
INSERT INTO fk_c VALUES (513), (523);
DELETE FROM c WHERE id = 511;
DELETE FROM c WHERE id = 521;
INSERT INTO fk_c VALUES (999999);
SELECT twin($$DELETE FROM {t} WHERE id = 524$$);
DROP TABLE fk_c;
SELECT same(), quickstep.check_table('c') IS NOT NULL AS checked;

-- 8. partial and expression indexes: index scans return heap's rows
CREATE INDEX h_part ON h (k) WHERE n IS NULL;
CREATE INDEX c_part ON c (k) WHERE n IS NULL;
CREATE INDEX h_expr ON h (lower(t));
CREATE INDEX c_expr ON c (lower(t));
SELECT twin($$INSERT INTO {t} SELECT i, i % 4, CASE WHEN i % 2 = 0 THEN 'T' || i % 3 END,
  CASE WHEN i % 3 = 0 THEN i END, NULL FROM generate_series(601, 660) i$$);
SELECT twin($$UPDATE {t} SET n = NULL, t = 'T1' WHERE id BETWEEN 603 AND 606$$);
SELECT remember();
SELECT quickstep.merge('c') > 0 AS moved;
SELECT same(), quickstep.check_table('c') IS NOT NULL AS checked;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT id FROM c WHERE k = 2 AND n IS NULL;
SELECT array_agg(id ORDER BY id) FROM c WHERE k = 2 AND n IS NULL;
SELECT array_agg(id ORDER BY id) FROM h WHERE k = 2 AND n IS NULL;
EXPLAIN (COSTS OFF) SELECT id FROM c WHERE lower(t) = 't1';
SELECT array_agg(id ORDER BY id) FROM c WHERE lower(t) = 't1';
SELECT array_agg(id ORDER BY id) FROM h WHERE lower(t) = 't1';
SELECT count(*), sum(id) FROM c WHERE id BETWEEN 1 AND 700;
SELECT count(*), sum(id) FROM h WHERE id BETWEEN 1 AND 700;
SELECT id FROM c WHERE id BETWEEN 600 AND 700 ORDER BY id DESC LIMIT 5;
SELECT id FROM h WHERE id BETWEEN 600 AND 700 ORDER BY id DESC LIMIT 5;
-- the index still finds the rows after VACUUM removed the old versions
VACUUM c;
SELECT array_agg(id ORDER BY id) FROM c WHERE k = 2 AND n IS NULL;
SELECT array_agg(id ORDER BY id) FROM c WHERE lower(t) = 't1';
SELECT count(*), sum(id) FROM c WHERE id BETWEEN 1 AND 700;
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT same(), quickstep.check_table('c') IS NOT NULL AS checked;

-- 9. a merge whose transaction rolls back moves nothing
SELECT twin($$INSERT INTO {t} SELECT i, i, 'rb', NULL, NULL FROM generate_series(701, 730) i$$);
SELECT remember();
BEGIN;
SELECT quickstep.merge('c') AS moved;
SELECT same(), relocated();
ROLLBACK;
SELECT same(), relocated(), quickstep.check_table('c') IS NOT NULL AS checked;
-- the same rows move later
BEGIN;
SELECT quickstep.merge('c') AS moved;
SELECT twin($$UPDATE {t} SET k = 0 WHERE id IN (701, 702)$$);
SELECT twin($$DELETE FROM {t} WHERE id = 703$$);
SELECT same();
ROLLBACK;
SELECT same(), relocated(), quickstep.check_table('c') IS NOT NULL AS checked;

-- 10. a merge in a savepoint that is rolled back
BEGIN;
SAVEPOINT s;
SELECT quickstep.merge('c') AS moved;
ROLLBACK TO s;
SELECT same(), relocated();
SELECT twin($$UPDATE {t} SET k = k * 2 WHERE id BETWEEN 704 AND 706$$);
SAVEPOINT s2;
SELECT quickstep.merge('c') AS moved;
SELECT twin($$UPDATE {t} SET t = 'in s2' WHERE id = 710$$);
RELEASE s2;
SELECT same();
COMMIT;
SELECT same(), relocated(), quickstep.check_table('c') IS NOT NULL AS checked;

-- 11. two merges in one transaction; the second finds nothing new
SELECT twin($$INSERT INTO {t} SELECT i, i, 'tw', NULL, NULL FROM generate_series(731, 750) i$$);
BEGIN;
SELECT quickstep.merge('c') AS first;
SELECT quickstep.merge('c') AS second;
SELECT twin($$UPDATE {t} SET k = -1 WHERE id BETWEEN 731 AND 735$$);
SELECT quickstep.merge('c') AS third;
SELECT same();
COMMIT;
SELECT same(), quickstep.check_table('c') IS NOT NULL AS checked;

-- 12. a cursor opened before a merge in the same transaction keeps its
-- rows; one opened after it sees the same rows
CREATE FUNCTION cursor_rest(cur refcursor) RETURNS text LANGUAGE plpgsql AS $f$
DECLARE r record; n bigint := 0; s bigint := 0;
BEGIN
  LOOP
    FETCH cur INTO r;
    EXIT WHEN NOT FOUND;
    n := n + 1; s := s + r.id;
  END LOOP;
  RETURN n || ' rows, sum ' || s;
END $f$;
SELECT twin($$INSERT INTO {t} SELECT i, i, 'cur', NULL, NULL FROM generate_series(901, 950) i$$);
BEGIN;
DECLARE cur CURSOR FOR SELECT id FROM c ORDER BY id;
DECLARE hcur CURSOR FOR SELECT id FROM h ORDER BY id;
FETCH 3 FROM cur;
FETCH 3 FROM hcur;
SELECT quickstep.merge('c') > 0 AS moved;
SELECT cursor_rest('cur'), cursor_rest('hcur');
DECLARE cur2 CURSOR FOR SELECT id FROM c ORDER BY id;
DECLARE hcur2 CURSOR FOR SELECT id FROM h ORDER BY id;
SELECT cursor_rest('cur2'), cursor_rest('hcur2');
COMMIT;
SELECT same(), quickstep.check_table('c') IS NOT NULL AS checked;

-- 13. VACUUM, VACUUM FULL and a merge after them
VACUUM c;
SELECT same(), quickstep.check_table('c') IS NOT NULL AS checked;
SELECT twin($$INSERT INTO {t} SELECT i, i, 'vf', NULL, NULL FROM generate_series(951, 960) i$$);
VACUUM FULL c;
SELECT same(), quickstep.check_table('c') IS NOT NULL AS checked;
SELECT twin($$INSERT INTO {t} SELECT i, i, 'after vf', NULL, NULL FROM generate_series(961, 970) i$$);
SELECT quickstep.merge('c') AS moved;
SELECT same(), quickstep.check_table('c') IS NOT NULL AS checked;

-- 14. an empty table, a table whose rows are all deleted, a truncated one
CREATE TABLE e (a int) USING quickstep_column;
SELECT quickstep.merge('e') AS moved_empty;
INSERT INTO e SELECT generate_series(1, 10);
DELETE FROM e;
SELECT quickstep.merge('e') AS moved_deleted;
SELECT count(*) FROM e;
INSERT INTO e SELECT generate_series(1, 10);
TRUNCATE e;
SELECT quickstep.merge('e') AS moved_truncated;
INSERT INTO e VALUES (1), (2);
SELECT quickstep.merge('e') AS moved_two;
SELECT a FROM e ORDER BY a;
SELECT quickstep.check_table('e') IS NOT NULL AS checked;
-- a table of no columns
CREATE TABLE z () USING quickstep_column;
INSERT INTO z DEFAULT VALUES;
INSERT INTO z DEFAULT VALUES;
SELECT quickstep.merge('z') >= 0 AS merged;
SELECT count(*) FROM z;
SELECT quickstep.check_table('z') IS NOT NULL AS checked;

-- 15. the merge inside a statement that reads or writes the same table
-- (its own tables, so that a failure here leaves the rest alone): the
-- statement sees each row once and changes it once
CREATE TABLE sh (id int, k int);
CREATE TABLE sc (id int, k int) USING quickstep_column;
ALTER TABLE sh SET (autovacuum_enabled = off);
ALTER TABLE sc SET (autovacuum_enabled = off);
CREATE FUNCTION same_s() RETURNS text LANGUAGE sql AS $$
  SELECT format('sc-sh %s, sh-sc %s, rows %s/%s (heap)',
    (SELECT count(*) FROM (SELECT * FROM sc EXCEPT ALL SELECT * FROM sh) x),
    (SELECT count(*) FROM (SELECT * FROM sh EXCEPT ALL SELECT * FROM sc) x),
    (SELECT count(*) FROM sc), (SELECT count(*) FROM sh)) $$;
INSERT INTO sh SELECT i, i FROM generate_series(1, 50) i;
INSERT INTO sc SELECT * FROM sh;
SELECT count(*), sum(id) FROM sc WHERE quickstep.merge('sc') >= 0;
SELECT count(*), sum(id) FROM sh;
INSERT INTO sh SELECT i, i FROM generate_series(51, 100) i;
INSERT INTO sc SELECT * FROM sh WHERE id > 50;
UPDATE sc SET k = k + 1 WHERE quickstep.merge('sc') >= 0;
UPDATE sh SET k = k + 1;
SELECT same_s(), quickstep.check_table('sc') IS NOT NULL AS checked;
INSERT INTO sh SELECT i, i FROM generate_series(101, 150) i;
INSERT INTO sc SELECT * FROM sh WHERE id > 100;
WITH m AS MATERIALIZED (SELECT quickstep.merge('sc') AS n)
UPDATE sc SET k = k + 100 FROM m WHERE m.n >= 0 AND id % 2 = 0;
UPDATE sh SET k = k + 100 WHERE id % 2 = 0;
SELECT same_s(), quickstep.check_table('sc') IS NOT NULL AS checked;
INSERT INTO sh SELECT i, i FROM generate_series(151, 200) i;
INSERT INTO sc SELECT * FROM sh WHERE id > 150;
DELETE FROM sc WHERE id > 175 AND quickstep.merge('sc') >= 0;
DELETE FROM sh WHERE id > 175;
SELECT same_s(), quickstep.check_table('sc') IS NOT NULL AS checked;
INSERT INTO sh SELECT i, i FROM generate_series(176, 200) i;
INSERT INTO sc SELECT * FROM sh WHERE id > 175;
SELECT count(*) FROM (SELECT id FROM sc WHERE quickstep.merge('sc') >= 0 FOR UPDATE) x;
SELECT count(*) FROM (SELECT id FROM sh FOR UPDATE) x;
SELECT same_s(), quickstep.check_table('sc') IS NOT NULL AS checked;

-- 16. logical decoding: a merge decodes as nothing; changes to moved rows
-- decode as heap's (the heap twin's change beside each)
CREATE TABLE dh (id int PRIMARY KEY, v text);
CREATE TABLE dc (id int PRIMARY KEY, v text) USING quickstep_column;
INSERT INTO dh SELECT g, 'v' || g FROM generate_series(1, 5) g;
INSERT INTO dc SELECT * FROM dh;
SELECT 'init' FROM pg_create_logical_replication_slot('regress_column_merge', 'test_decoding');
SELECT quickstep.merge('dc') AS moved;
BEGIN;
SELECT quickstep.merge('dc') AS moved_none;
UPDATE dh SET v = 'upd' WHERE id = 2;
UPDATE dc SET v = 'upd' WHERE id = 2;
DELETE FROM dh WHERE id = 3;
DELETE FROM dc WHERE id = 3;
COMMIT;
SELECT quickstep.merge('dc') AS moved_update;
SELECT data FROM pg_logical_slot_get_changes('regress_column_merge', NULL, NULL,
  'include-xids', '0', 'skip-empty-xacts', '1');
SELECT pg_drop_replication_slot('regress_column_merge');
SELECT (SELECT array_agg(dc ORDER BY id) FROM dc)::text = (SELECT array_agg(dh ORDER BY id) FROM dh)::text AS same_rows;

-- 17. what merge refuses
SELECT quickstep.merge('h');
CREATE TABLE r (a int) USING quickstep_hpl;
SELECT quickstep.merge('r');
-- an index (core words the error differently on PG 15 and 18: its SQLSTATE)
DO $$ BEGIN PERFORM quickstep.merge('c_id'); RAISE NOTICE 'merged an index';
EXCEPTION WHEN OTHERS THEN RAISE NOTICE 'refused: %', SQLSTATE; END $$;
CREATE VIEW v AS SELECT * FROM c;
SELECT quickstep.merge('v');
SELECT quickstep.merge(NULL);
BEGIN ISOLATION LEVEL SERIALIZABLE;
SELECT quickstep.merge('c');
ROLLBACK;
BEGIN ISOLATION LEVEL SERIALIZABLE;
SAVEPOINT s;
SELECT quickstep.merge('c');
ROLLBACK TO s;
SELECT count(*) FROM c;
COMMIT;
-- a statement after merge() in its transaction that reads or changes the
-- merged table (other sessions' changes of the moved rows would wait for
-- it: THE RULE) is refused, a second merge() or seal() of it too;
-- statements on other tables (a deferred foreign-key check at COMMIT
-- among them), COMMIT, ROLLBACK, savepoint commands, SET and SHOW run
RESET quickstep.debug_merge_hold;
SELECT twin($$INSERT INTO {t} SELECT i, i, 'last', NULL, NULL FROM generate_series(971, 975) i$$);
BEGIN;
SAVEPOINT s;
SELECT quickstep.merge('c') AS moved;
SHOW quickstep.debug_merge_hold;
SELECT count(*) FROM h WHERE id > 970;
SELECT count(*) FROM c;
ROLLBACK TO s;
SELECT quickstep.merge('c') AS moved;
SELECT quickstep.merge('c') AS moved_again;
ROLLBACK;
BEGIN;
SELECT quickstep.merge('c') AS moved;
SELECT quickstep.seal('c');
ROLLBACK;
BEGIN;
SELECT quickstep.merge('c') AS moved;
SELECT quickstep.check_table('c') IS NOT NULL AS checked;
ROLLBACK;
DO $$ BEGIN PERFORM quickstep.merge('c'); PERFORM count(*) FROM h; PERFORM count(*) FROM c; END $$;
CREATE TABLE fk_parent (id int PRIMARY KEY);
CREATE TABLE fk_child (ref int REFERENCES fk_parent DEFERRABLE INITIALLY DEFERRED);
INSERT INTO fk_parent VALUES (1);
BEGIN;
INSERT INTO fk_child VALUES (1);
SELECT quickstep.merge('c') AS moved;
COMMIT;
SELECT count(*) AS checked_at_commit FROM fk_child;
DROP TABLE fk_child, fk_parent;
SELECT same(), quickstep.check_table('c') IS NOT NULL AS checked;
SET quickstep.debug_merge_hold = on;
-- a role that does not own the table, even with every privilege on it
CREATE ROLE regress_column_merge_other;
GRANT USAGE ON SCHEMA column_merge TO regress_column_merge_other;
GRANT ALL ON c TO regress_column_merge_other;
GRANT USAGE ON SCHEMA quickstep TO regress_column_merge_other;
SET ROLE regress_column_merge_other;
SELECT count(*) FROM c;
SELECT quickstep.merge('c');
RESET ROLE;
SELECT same(), quickstep.check_table('c') IS NOT NULL AS checked;

-- HOT stays off in column tables (a heap-only delta version is never quiet
-- and main rows have no chains): updates of a column no index has are not
-- counted HOT; CREATE INDEX CONCURRENTLY validates the main rows at their
-- virtual TIDs (review of hot3, H1: it read block 2147483648)
SELECT twin($$INSERT INTO {t} SELECT i, 1, 'new', 0, NULL FROM generate_series(2001, 2010) i$$);
SELECT twin($$UPDATE {t} SET n = n + 1 WHERE id BETWEEN 2001 AND 2005$$);
SELECT pg_stat_force_next_flush();
SELECT n_tup_upd >= 5 AS updated, n_tup_hot_upd FROM pg_stat_user_tables
 WHERE relid = 'c'::regclass;
SELECT in_main() > 0 AS has_main_rows;
CREATE INDEX CONCURRENTLY c_k ON c (k);
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT count(*), sum(id) FROM c WHERE k BETWEEN -1000 AND 10000;
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT count(*), sum(id) FROM h WHERE k BETWEEN -1000 AND 10000;
SELECT same(), quickstep.check_table('c') IS NOT NULL AS checked;

DROP SCHEMA column_merge CASCADE;
REVOKE USAGE ON SCHEMA quickstep FROM regress_column_merge_other;
DROP ROLE regress_column_merge_other;
RESET search_path;
