-- Found by TAP 07j (seed 4, PG 15): a serial pushed float sum is not the
-- serial plain scan's sum when a block is sealed sorted with a TID map.
-- src/scan/README.md (Aggregate pushdown, "Why not avg(float4|float8)")
-- says the pushed sums add "in the scan's row order (the delta, then the
-- blocks in directory order: the order the plain scan returns the rows, so
-- a serial pushed sum equals the serial unpushed one bit for bit)".  On a
-- sealed sorted image the plain Seq Scan returns the rows in TID order (the
-- TID map), QuickstepScan (row mode and aggregate mode alike) in stored,
-- sort-key order, so float sums differ (only in rounding: no row is lost).
-- Run on a fresh database; PG 15 and 18.
CREATE EXTENSION quickstep_am;
CREATE TABLE t (k int, f float8) USING quickstep_column
  WITH (quickstep.sort_key = 'k', quickstep.rows_per_block = 1000);
SET quickstep.column_delta_rows = 100000000;
-- 500 rows: in TID order 1e16 first, then 499 ones; in k order the ones first
INSERT INTO t SELECT 500 - g, CASE WHEN g = 1 THEN 1e16 ELSE 1 END
  FROM generate_series(1, 500) g;
SELECT quickstep.merge('t');   -- 500: into the open block, in TID order
SELECT quickstep.seal('t');    -- 1: sealed, sorted on k, with a TID map
SET max_parallel_workers_per_gather = 0;
SELECT sum(f) AS pushed FROM t;   -- Finalize Aggregate over QuickstepScan: 1.00000000000005e+16
SET quickstep.enable_pushdown = off;
SELECT sum(f) AS plain FROM t;    -- Aggregate over Seq Scan: 1e+16
SELECT (SELECT sum(f) FROM (SELECT f FROM t ORDER BY ctid) s) AS tid_order,   -- 1e+16
       (SELECT sum(f) FROM (SELECT f FROM t ORDER BY k) s) AS k_order;        -- 1.00000000000005e+16
