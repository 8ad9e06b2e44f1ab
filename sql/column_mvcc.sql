-- Index entries of main rows no transaction can see (the load or merge
-- that wrote them rolled back, a subtransaction too) are killed by the
-- index scans that meet them (all_dead), as heap's are: the core test
-- mvcc (clean_aborted_self_key) with every row loaded into blocks, on a
-- column table and a heap twin in the same transaction.
CREATE SCHEMA column_mvcc;
SET search_path = column_mvcc, public;
SET max_parallel_workers_per_gather = 0;
SET jit = off;

BEGIN;
SET LOCAL enable_seqscan = false;
SET LOCAL enable_indexonlyscan = false;
SET LOCAL enable_bitmapscan = false;
SET LOCAL quickstep.column_delta_rows = 0;	-- INSERT ... SELECT loads blocks
CREATE TABLE h (key int, data text);
CREATE TABLE c (key int, data text) USING quickstep_column;
CREATE INDEX h_key ON h (key);
CREATE INDEX c_key ON c (key);
INSERT INTO h (key, data) VALUES (-1, 'just to allocate metapage');
INSERT INTO c (key, data) VALUES (-1, 'just to allocate metapage');
SELECT pg_relation_size('h_key') AS h_before \gset
SELECT pg_relation_size('c_key') AS c_before \gset

CREATE FUNCTION churn(t text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  FOR i IN 1..100 LOOP
    BEGIN
      -- an index scan over every key inserted so far: their rows are dead
      EXECUTE format('SELECT EXISTS (SELECT * FROM %I WHERE key > 0 AND key < 100)', t)
        INTO STRICT found;
      IF found THEN
        RAISE data_corrupted USING MESSAGE = 'these rows should not exist';
      END IF;
      EXECUTE format($q$INSERT INTO %I SELECT g.i, 'rolling back in a sec'
                        FROM generate_series(1, 100) g(i)$q$, t);
      RAISE reading_sql_data_not_permitted USING MESSAGE = 'round and round again';
    EXCEPTION WHEN reading_sql_data_not_permitted THEN
    END;
  END LOOP;
END $$;

-- the plan the loop runs is an index scan
EXPLAIN (COSTS OFF) SELECT * FROM c WHERE key > 0 AND key < 100;
SELECT churn('h');
SELECT churn('c');
-- the loop's rows go into blocks (virtual TIDs), not the delta
SAVEPOINT x;
WITH ins AS (INSERT INTO c SELECT g.i, 'x' FROM generate_series(1, 100) g(i) RETURNING ctid)
SELECT count(*) FILTER (WHERE ctid >= '(2147483648,0)') AS in_blocks FROM ins;
ROLLBACK TO x;
-- heap's index does not grow; the column table's stays within twice
-- heap's (without all_dead it grew 5.5-fold: 16384 -> 90112 bytes)
SELECT pg_relation_size('h_key') = :h_before AS heap_index_same,
       pg_relation_size('c_key') <= 2 * pg_relation_size('h_key') AS column_index_bounded;
SELECT count(*) AS rows_left FROM c WHERE key > -10;
ROLLBACK;

-- deleted main rows: once the deleter committed before every snapshot,
-- index scans kill their entries too (HeapTupleIsSurelyDead on the
-- delete-map entry), as heap's do.  Delete and reload the same keys into
-- new blocks, an index scan after each round, no VACUUM.
CREATE TABLE dh (key int, data text);
CREATE TABLE dc (key int, data text) USING quickstep_column;
ALTER TABLE dh SET (autovacuum_enabled = off);
ALTER TABLE dc SET (autovacuum_enabled = off);
CREATE INDEX dh_key ON dh (key);
CREATE INDEX dc_key ON dc (key);
CREATE PROCEDURE reload(t text) LANGUAGE plpgsql AS $$
DECLARE n bigint;
BEGIN
  FOR i IN 1..60 LOOP
    EXECUTE format('DELETE FROM %I WHERE key BETWEEN 1 AND 200', t);
    COMMIT;
    EXECUTE format($q$INSERT INTO %I SELECT g, 'x' FROM generate_series(1, 200) g$q$, t);
    COMMIT;
    EXECUTE format('SELECT count(*) FROM %I WHERE key BETWEEN 1 AND 200', t) INTO n;
    IF n <> 200 THEN
      RAISE 'round %: % rows', i, n;
    END IF;
    COMMIT;
  END LOOP;
END $$;
SET quickstep.column_delta_rows = 0;
SET enable_seqscan = off; SET enable_bitmapscan = off; SET enable_indexonlyscan = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM dc WHERE key BETWEEN 1 AND 200;
CALL reload('dh');
CALL reload('dc');
SELECT count(*) FILTER (WHERE ctid >= '(2147483648,0)') AS main_rows FROM dc;
SELECT pg_relation_size('dc_key') <= 2 * pg_relation_size('dh_key') AS column_index_bounded;
SELECT count(*), sum(key) FROM dc WHERE key BETWEEN 1 AND 200;
RESET enable_seqscan; RESET enable_bitmapscan; RESET enable_indexonlyscan;
RESET quickstep.column_delta_rows;
SELECT quickstep.check_table('dc') > 0 AS checked;

-- killed entries never hide a live row: a merge that rolls back leaves its
-- rows' index entries (main TIDs) dead while the rows live on in the delta;
-- the next merge puts them in a new block
CREATE TABLE m (key int, v int) USING quickstep_column;
ALTER TABLE m SET (autovacuum_enabled = off);
CREATE INDEX m_key ON m (key);
INSERT INTO m SELECT g, g FROM generate_series(1, 100) g;
SELECT quickstep.merge('m') AS merged;
INSERT INTO m SELECT g, g FROM generate_series(101, 150) g;
BEGIN;
SELECT quickstep.merge('m') AS merged;
ROLLBACK;
SET enable_seqscan = off; SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT count(*), sum(v) FROM m WHERE key BETWEEN 1 AND 200;
SELECT count(*), sum(v) FROM m WHERE key BETWEEN 1 AND 200;
SELECT count(*), sum(v) FROM m WHERE key BETWEEN 1 AND 200;
SELECT quickstep.merge('m') AS merged;
SELECT count(*), sum(v) FROM m WHERE key BETWEEN 1 AND 200;
SELECT count(*), sum(v) FROM m WHERE key BETWEEN 101 AND 150;
-- a seal that rolls back, then a merge into the same block: its new rows'
-- entries are alive
CREATE TABLE s (key int, v int) USING quickstep_column WITH (quickstep.sort_key = 'v');
ALTER TABLE s SET (autovacuum_enabled = off);
CREATE INDEX s_key ON s (key);
INSERT INTO s SELECT g, -g FROM generate_series(1, 100) g;
SELECT quickstep.merge('s') AS merged;
BEGIN;
SELECT quickstep.seal('s') AS sealed;
ROLLBACK;
SELECT count(*), sum(v) FROM s WHERE key BETWEEN 1 AND 200;
INSERT INTO s SELECT g, -g FROM generate_series(101, 150) g;
SELECT quickstep.merge('s') AS merged;
SELECT block_id, state, rows FROM quickstep.blocks('s') WHERE column_name = 'v';
SELECT count(*), sum(v) FROM s WHERE key BETWEEN 1 AND 200;
SELECT count(*), sum(v) FROM s WHERE key BETWEEN 1 AND 200;
RESET enable_seqscan; RESET enable_bitmapscan;
SELECT count(*), sum(v) FROM m;
SELECT count(*), sum(v) FROM s;
SELECT quickstep.check_table('m') > 0 AND quickstep.check_table('s') > 0 AS checked;

DROP SCHEMA column_mvcc CASCADE;
