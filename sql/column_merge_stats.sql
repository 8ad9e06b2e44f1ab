-- quickstep.column_stats counts merges (src/merge/stats.c): quickstep.merge()
-- and the merge worker, when their transaction commits.  The worker leaves
-- these tables alone: their deltas are far below quickstep.merge_threshold.

SELECT attnum, attname, format_type(atttypid, atttypmod)
  FROM pg_attribute
 WHERE attrelid = 'quickstep.column_stats'::regclass AND attnum > 0
 ORDER BY attnum;

SELECT name, boot_val AS setting, unit, context FROM pg_settings
 WHERE name IN ('quickstep.merge_workers', 'quickstep.merge_naptime', 'quickstep.merge_threshold')
 ORDER BY name;

CREATE TABLE ms (a int, b text) USING quickstep_column;
CREATE TABLE ms_heap (a int, b text);
INSERT INTO ms SELECT g, 'v' || g FROM generate_series(1, 100) g;
INSERT INTO ms_heap SELECT g, 'v' || g FROM generate_series(1, 100) g;

-- never merged: zero counters, no time, no error
SELECT delta_rows, main_rows, merges, last_merge IS NULL AS never, rows_merged,
       merge_ms, last_error
  FROM quickstep.column_stats WHERE relid = 'ms'::regclass;

SELECT quickstep.merge('ms');
SELECT delta_rows, main_rows, merges, last_merge IS NOT NULL AS merged, rows_merged,
       merge_ms >= 0 AS timed, last_error
  FROM quickstep.column_stats WHERE relid = 'ms'::regclass;

-- a merge rolled back moved nothing and is not counted
INSERT INTO ms SELECT g, 'w' || g FROM generate_series(101, 150) g;
INSERT INTO ms_heap SELECT g, 'w' || g FROM generate_series(101, 150) g;
BEGIN;
SELECT quickstep.merge('ms');
ROLLBACK;
SELECT delta_rows, merges, rows_merged FROM quickstep.column_stats WHERE relid = 'ms'::regclass;

-- nor is one in a subtransaction rolled back; the one after it is
BEGIN;
SAVEPOINT s;
SELECT quickstep.merge('ms');
ROLLBACK TO s;
SAVEPOINT s2;
SELECT quickstep.merge('ms');
RELEASE s2;
COMMIT;
SELECT delta_rows, main_rows, merges, rows_merged FROM quickstep.column_stats WHERE relid = 'ms'::regclass;

-- a merge that finds nothing to move is a merge of 0 rows
SELECT quickstep.merge('ms');
SELECT merges, rows_merged FROM quickstep.column_stats WHERE relid = 'ms'::regclass;

-- the rows are the heap twin's
SELECT count(*), sum(a), md5(string_agg(b, ',' ORDER BY a)) FROM ms;
SELECT count(*), sum(a), md5(string_agg(b, ',' ORDER BY a)) FROM ms_heap;
SELECT quickstep.check_table('ms') >= 150 AS clean;

-- quickstep.merge_stats(): this database's tables that were merged, by oid
SELECT relid::regclass, merges, rows_merged, last_error, last_error_at
  FROM quickstep.merge_stats() WHERE relid = 'ms'::regclass;

-- a table never merged is in the view with zeros; other tables are not in it
CREATE TABLE ms_none (a int) USING quickstep_column;
SELECT relid, merges, rows_merged, merge_ms, last_merge, last_error
  FROM quickstep.column_stats WHERE relid IN ('ms_none'::regclass, 'ms_heap'::regclass);

-- every moved row leaves one dead version (the delta original; the main
-- copy if the merge aborts): counted dead for autovacuum, and VACUUM gives
-- the emptied delta pages to the next inserts
CREATE TABLE md (a int, b text) USING quickstep_column;
INSERT INTO md SELECT g, repeat('x', 200) FROM generate_series(1, 300) g;
SELECT quickstep.merge('md');
SELECT pg_stat_force_next_flush();
SELECT pg_stat_clear_snapshot();
SELECT n_live_tup, n_dead_tup >= 300 AS moved_rows_dead
  FROM pg_stat_user_tables WHERE relid = 'md'::regclass;
VACUUM md;
SELECT pg_relation_size('md') AS size_after_vacuum \gset
INSERT INTO md SELECT g, repeat('y', 200) FROM generate_series(301, 600) g;
SELECT pg_relation_size('md') = :size_after_vacuum AS delta_pages_reused;
SELECT count(*), sum(a) FROM md;
SELECT quickstep.check_table('md') = 600 AS clean;

DROP TABLE ms, ms_heap, ms_none, md;
