-- seq_tup_read of a scan that pushes aggregates down (src/scan/aggexec.c)
-- counts a column table's main rows as the plain QuickstepScan does: rows
-- answered from a block's header and rows read that pass the pushed quals.
-- It counted only the delta's rows: PostgreSQL 18's core stats test
-- (count(*) of tenk2, then seq_tup_read >= reltuples) gave f with
-- quickstep_column as the default AM (test/REGRESS_DIFFERENCES.md, PG 18).
CREATE SCHEMA column_aggstats;
SET search_path = column_aggstats, public;
CREATE TABLE t (a int, b text) USING quickstep_column
  WITH (autovacuum_enabled = off);  -- nothing else scans it between readings
SET quickstep.column_delta_rows = 0;
INSERT INTO t SELECT g, 'x' || g FROM generate_series(1, 5000) g;
RESET quickstep.column_delta_rows;
INSERT INTO t SELECT g, 'd' FROM generate_series(5001, 5010) g;
SET max_parallel_workers_per_gather = 0;
-- a scan's counts reach pg_stat_user_tables after its transaction ends
CREATE VIEW reads AS
  SELECT seq_tup_read FROM pg_stat_user_tables
   WHERE relid = 'column_aggstats.t'::regclass;
SELECT pg_stat_force_next_flush() AS flushed \gset
SELECT seq_tup_read AS before FROM reads \gset

-- answered from the headers: every row counts, as heap counts tenk2's
EXPLAIN (COSTS OFF) SELECT count(*) FROM t;
SELECT count(*) FROM t;
SELECT pg_stat_force_next_flush() AS flushed \gset
SELECT seq_tup_read - :before AS header_rows FROM reads;

-- rows read: those that pass the quals, with and without aggregate pushdown
SELECT seq_tup_read AS before FROM reads \gset
EXPLAIN (COSTS OFF) SELECT count(*), max(a) FROM t WHERE a > 100;
SELECT count(*), max(a) FROM t WHERE a > 100;
SELECT pg_stat_force_next_flush() AS flushed \gset
SELECT seq_tup_read - :before AS pushed_rows FROM reads \gset
SELECT seq_tup_read AS before FROM reads \gset
SET quickstep.enable_agg_pushdown = off;
SELECT count(*), max(a) FROM t WHERE a > 100;
RESET quickstep.enable_agg_pushdown;
SELECT pg_stat_force_next_flush() AS flushed \gset
SELECT seq_tup_read - :before AS plain_rows FROM reads \gset
SELECT :pushed_rows AS pushed_rows, :plain_rows AS plain_rows;

-- heap counts every row it returns to the executor
CREATE TABLE h (a int, b text) USING heap;
INSERT INTO h SELECT * FROM t;
SELECT count(*) FROM h;
SELECT pg_stat_force_next_flush() AS flushed \gset
SELECT seq_tup_read FROM pg_stat_user_tables WHERE relid = 'h'::regclass;

RESET max_parallel_workers_per_gather;
DROP SCHEMA column_aggstats CASCADE;
