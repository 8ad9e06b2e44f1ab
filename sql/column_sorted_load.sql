-- A bulk load that may sort (src/column/load.c: sort key set, no TID
-- handed out) sorts the whole command's block-bound rows on the sort key,
-- not each block alone (issue 13): the blocks' ranges of the key are
-- disjoint and ascending, NULLs last, and a 1 % range of the key reads
-- one or two blocks.  A table with an index keeps arrival order.
CREATE SCHEMA column_sorted_load;
SET search_path = column_sorted_load, public;
SET quickstep.column_delta_rows = 0;		-- every row goes to blocks
SET max_parallel_workers_per_gather = 0;

-- 20,000 rows, c1 a permutation of 0..19999 with every 97th row NULL
CREATE TABLE src (id int, c1 int, c2 text, c3 float8);
INSERT INTO src
  SELECT i, CASE WHEN i % 97 = 0 THEN NULL ELSE (i * 7919) % 20000 END,
         'v' || (i % 13), i / 7.0
  FROM generate_series(1, 20000) i;

-- the table's physical order (ctid) is c1's order, NULLs last; its blocks'
-- ranges of c1 are disjoint and ascending
CREATE FUNCTION order_check(rel regclass, col text, coll text DEFAULT NULL,
  OUT out_of_order bigint, OUT value_after_null bigint, OUT blocks bigint,
  OUT overlapping_blocks bigint)
LANGUAGE plpgsql AS $f$
DECLARE c text := quote_ident(col) ||
  CASE WHEN coll IS NULL THEN '' ELSE ' COLLATE ' || quote_ident(coll) END;
BEGIN
  EXECUTE format($q$SELECT count(*) FILTER (WHERE p IS NOT NULL AND v < p),
                           count(*) FILTER (WHERE pn AND v IS NOT NULL)
                    FROM (SELECT %1$s AS v, lag(%1$s) OVER w AS p,
                                 lag(%2$I IS NULL) OVER w AS pn
                          FROM %3$s WINDOW w AS (ORDER BY ctid)) s$q$,
                 c, col, rel)
    INTO out_of_order, value_after_null;
  -- quickstep.blocks() shows min and max as text: compare them as the column
  EXECUTE format($q$SELECT count(*),
                           count(*) FILTER (WHERE pmax IS NOT NULL AND mn IS NOT NULL
                                            AND mn::%1$s %2$s < pmax::%1$s %2$s)
                    FROM (SELECT min AS mn, lag(max) OVER (ORDER BY block_id) AS pmax
                          FROM quickstep.blocks(%3$L) WHERE column_name = %4$L) s$q$,
                 format_type(atttypid, atttypmod),
                 CASE WHEN coll IS NULL THEN '' ELSE 'COLLATE ' || quote_ident(coll) END,
                 rel, col)
    FROM pg_attribute WHERE attrelid = rel AND attname = col
    INTO blocks, overlapping_blocks;
END $f$;

-- the answers of q on table t equal those on src's rows repeated 'times'
-- times, as multisets
CREATE FUNCTION agree(q text, t text, times int DEFAULT 1) RETURNS text
LANGUAGE plpgsql AS $f$
DECLARE a bigint; b bigint; n bigint;
  s text := CASE WHEN times = 1 THEN 'src' ELSE
    format('(SELECT s.* FROM src s, generate_series(1, %s) g) src', times) END;
BEGIN
  EXECUTE format('SELECT count(*) FROM (%s EXCEPT ALL %s) x',
                 replace(q, '{t}', t), replace(q, '{t}', s)) INTO a;
  EXECUTE format('SELECT count(*) FROM (%s EXCEPT ALL %s) x',
                 replace(q, '{t}', s), replace(q, '{t}', t)) INTO b;
  EXECUTE format('SELECT count(*) FROM (%s) x', replace(q, '{t}', t)) INTO n;
  IF a = 0 AND b = 0 THEN RETURN format('same: %s rows', n); END IF;
  RETURN format('DIFFER: %s-src %s, src-%s %s', t, a, t, b);
END $f$;

-- the column scan's block counters of a 1 % range of c1
CREATE FUNCTION range_blocks(t text) RETURNS SETOF text LANGUAGE plpgsql AS $f$
DECLARE line text;
BEGIN
  FOR line IN EXECUTE format('EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
                              SELECT * FROM %I WHERE c1 >= 19800', t) LOOP
    IF line ~ 'Column Blocks Read|Skipped by Min/Max' THEN
      RETURN NEXT regexp_replace(line, '^\s+', '');
    END IF;
  END LOOP;
END $f$;

-- CREATE TABLE AS
CREATE TABLE ctas USING quickstep_column
  WITH (quickstep.sort_key = 'c1', quickstep.rows_per_block = 1000)
  AS SELECT * FROM src;
SELECT * FROM order_check('ctas', 'c1');
SELECT agree('SELECT * FROM {t}', 'ctas');
SELECT agree('SELECT * FROM {t} WHERE c1 >= 19800', 'ctas');
SELECT agree('SELECT * FROM {t} WHERE c1 BETWEEN 5000 AND 5100', 'ctas');
SELECT agree('SELECT * FROM {t} WHERE c1 IS NULL', 'ctas');
SELECT * FROM range_blocks('ctas');
SELECT quickstep.check_table('ctas') AS checked;

-- equal keys keep their arrival order, as the per-block sort keeps them
CREATE TABLE ties USING quickstep_column
  WITH (quickstep.sort_key = 'k', quickstep.rows_per_block = 1000)
  AS SELECT id, id % 7 AS k FROM src;
SELECT count(*) FILTER (WHERE k = pk AND id < pid) AS ties_out_of_arrival_order
  FROM (SELECT id, k, lag(id) OVER w AS pid, lag(k) OVER w AS pk
        FROM ties WINDOW w AS (ORDER BY ctid)) s;
SELECT * FROM order_check('ties', 'k');

-- a materialized view: its first fill (PG 18 fills a new one through
-- REFRESH's transient table, which gets the statement's options too:
-- src/column/options.c, transient_of_created) and a refresh
CREATE MATERIALIZED VIEW mv USING quickstep_column
  WITH (quickstep.sort_key = 'c1', quickstep.rows_per_block = 1000)
  AS SELECT * FROM src;
SELECT * FROM order_check('mv', 'c1');
REFRESH MATERIALIZED VIEW mv;
SELECT * FROM order_check('mv', 'c1');
SELECT agree('SELECT * FROM {t}', 'mv');
SELECT quickstep.check_table('mv') AS checked;

-- COPY into a table without indexes, in a transaction: a SELECT of the
-- table in the same transaction sees every row (the sort is emitted first)
CREATE TABLE cp (id int, c1 int, c2 text, c3 float8) USING quickstep_column
  WITH (quickstep.sort_key = 'c1', quickstep.rows_per_block = 1000);
COPY (SELECT * FROM src) TO '/tmp/qs_column_sorted_load.copy';
BEGIN;
COPY cp FROM '/tmp/qs_column_sorted_load.copy';
SELECT count(*), count(c1), sum(c1) FROM cp;
SELECT * FROM order_check('cp', 'c1');
COPY cp FROM '/tmp/qs_column_sorted_load.copy';
COMMIT;
SELECT agree('SELECT * FROM {t}', 'cp', 2);
SELECT quickstep.check_table('cp') AS checked;

-- a flush inside a subtransaction the load did not start: a BEFORE ROW
-- trigger's exception block reads the table (the sort is written out
-- there) and then fails; the rows fed before keep the loader's xid and
-- survive the block's rollback (review helper-196: the blocks written with
-- the running subtransaction's xid lost 14,999 rows unnoticed)
CREATE TABLE tg (id int, c1 int, c2 text, c3 float8) USING quickstep_column
  WITH (quickstep.sort_key = 'c1', quickstep.rows_per_block = 1000);
CREATE FUNCTION tg_peek() RETURNS trigger LANGUAGE plpgsql AS $f$
BEGIN
  IF NEW.id = 15000 THEN
    BEGIN
      PERFORM count(*) FROM column_sorted_load.tg;
      RAISE EXCEPTION 'undo the peek';
    EXCEPTION WHEN others THEN NULL;
    END;
  END IF;
  RETURN NEW;
END
$f$;
CREATE TRIGGER tg_peek BEFORE INSERT ON tg FOR EACH ROW EXECUTE FUNCTION tg_peek();
BEGIN;
COPY tg FROM '/tmp/qs_column_sorted_load.copy';
SELECT count(*), count(DISTINCT xmin::text) AS xmins,
       count(*) FILTER (WHERE xmin::text = txid_current()::text) AS mine FROM tg;
COMMIT;
SELECT count(*), count(DISTINCT xmin::text) AS xmins FROM tg;
SELECT agree('SELECT * FROM {t}', 'tg');
SELECT quickstep.check_table('tg') AS checked;
DROP TABLE tg;
DROP FUNCTION tg_peek();

-- a SAVEPOINT rolled back in the middle: the rolled-back load's rows,
-- sorted or not yet, are gone; the others are there, each load sorted
TRUNCATE cp;
BEGIN;
COPY cp FROM '/tmp/qs_column_sorted_load.copy';
SAVEPOINT s;
COPY cp FROM '/tmp/qs_column_sorted_load.copy';
ROLLBACK TO SAVEPOINT s;
SAVEPOINT s2;
COPY cp FROM '/tmp/qs_column_sorted_load.copy';
RELEASE SAVEPOINT s2;
SAVEPOINT s3;
COPY cp FROM '/tmp/qs_column_sorted_load.copy';
SELECT count(*) FROM cp;
ROLLBACK TO SAVEPOINT s3;
COMMIT;
SELECT agree('SELECT * FROM {t}', 'cp', 2);
SELECT quickstep.check_table('cp') AS checked;
-- a COPY that fails at its last row in a subtransaction, its sort (fed,
-- not yet emitted) spilled to temporary files: they go at the rollback
COPY (SELECT id::text, c1::text, c2, c3::text FROM src
      UNION ALL SELECT 'bad', NULL, NULL, NULL)
  TO '/tmp/qs_column_sorted_load_bad.copy';
TRUNCATE cp;
SET maintenance_work_mem = '1MB';
BEGIN;
SAVEPOINT s;
COPY cp FROM '/tmp/qs_column_sorted_load_bad.copy';
ROLLBACK TO SAVEPOINT s;
SELECT count(*) AS temp_files_left FROM pg_ls_tmpdir()
  WHERE name LIKE 'pgsql_tmp' || pg_backend_pid() || '.%';
COPY cp FROM '/tmp/qs_column_sorted_load.copy';
COMMIT;
RESET maintenance_work_mem;
SELECT * FROM order_check('cp', 'c1');
SELECT agree('SELECT * FROM {t}', 'cp');
SELECT quickstep.check_table('cp') AS checked;
-- logical decoding sees each committed row once, sorted or not yet when
-- logged (log_logical_rows logs a row when it is fed to the sort)
SELECT 'init' FROM pg_create_logical_replication_slot('qs_sorted_load', 'test_decoding');
TRUNCATE cp;
BEGIN;
COPY cp FROM '/tmp/qs_column_sorted_load.copy';
SAVEPOINT s;
COPY cp FROM '/tmp/qs_column_sorted_load.copy';
ROLLBACK TO SAVEPOINT s;
SELECT count(*) FROM cp;
COPY cp FROM '/tmp/qs_column_sorted_load.copy';
COMMIT;
SELECT count(*) AS inserts, count(DISTINCT data) AS distinct_rows
  FROM pg_logical_slot_get_changes('qs_sorted_load', NULL, NULL)
  WHERE data LIKE 'table column_sorted_load.cp: INSERT:%';
SELECT pg_drop_replication_slot('qs_sorted_load');
-- two commands: two sorted runs of blocks
SELECT * FROM order_check('cp', 'c1');

-- the load in a transaction that TRUNCATEs the table: nothing left
BEGIN;
COPY cp FROM '/tmp/qs_column_sorted_load.copy';
TRUNCATE cp;
COMMIT;
SELECT count(*) FROM cp;

-- a text sort key under a linguistic collation: the collation's order,
-- not the bytes'
SELECT coalesce((SELECT collname FROM pg_collation
                 WHERE collname IN ('en-x-icu', 'und-x-icu', 'en_US.utf8', 'en_US')
                 ORDER BY collname LIMIT 1), 'C') AS coll \gset
CREATE TABLE words USING quickstep_column
  WITH (quickstep.sort_key = 'w', quickstep.rows_per_block = 1000)
  AS SELECT id, (CASE WHEN id % 2 = 0 THEN 'a' ELSE 'B' END || c2 || id)
            COLLATE :"coll" AS w FROM src;
SELECT * FROM order_check('words', 'w', :'coll');
CREATE TABLE words_c USING quickstep_column
  WITH (quickstep.sort_key = 'w', quickstep.rows_per_block = 1000)
  AS SELECT id, (CASE WHEN id % 2 = 0 THEN 'a' ELSE 'B' END || c2 || id)
            COLLATE "C" AS w FROM src;
SELECT * FROM order_check('words_c', 'w', 'C');
-- (unless the server has no linguistic collation to test)
SELECT out_of_order > 0 OR :'coll' = 'C' AS not_in_byte_order
  FROM order_check('words', 'w', 'C');
SELECT quickstep.check_table('words') AS checked;
SELECT quickstep.check_table('words_c') AS checked;

-- with an index a loaded row's TID is handed out: arrival order, each
-- block sorted alone (blocks overlap)
CREATE TABLE ix (id int, c1 int, c2 text, c3 float8) USING quickstep_column
  WITH (quickstep.sort_key = 'c1', quickstep.rows_per_block = 1000);
CREATE INDEX ix_id ON ix (id);
COPY ix FROM '/tmp/qs_column_sorted_load.copy';
SELECT blocks, overlapping_blocks > 0 AS blocks_overlap FROM order_check('ix', 'c1');
SELECT agree('SELECT * FROM {t}', 'ix');
SELECT quickstep.check_table('ix') AS checked;

DROP SCHEMA column_sorted_load CASCADE;
