-- SERIALIZABLE fetches of main rows take SIREAD locks only on rows visible
-- to the snapshot, as heap's do (issue 14): 500 deleted rows met by an
-- index scan add no lock (they would be promoted to page locks: false
-- serialization failures).  A column table and a heap twin.
CREATE SCHEMA column_siread;
SET search_path = column_siread, public;
SET max_parallel_workers_per_gather = 0;
CREATE TABLE h (id int PRIMARY KEY, v int) WITH (autovacuum_enabled = off);
CREATE TABLE c (id int PRIMARY KEY, v int) USING quickstep_column
  WITH (autovacuum_enabled = off);	-- VACUUM would remove the deleted rows
INSERT INTO h SELECT g, g FROM generate_series(1, 1000) g;
INSERT INTO c SELECT g, g FROM generate_series(1, 1000) g;
SELECT quickstep.merge('c') > 0 AS merged;
DELETE FROM h WHERE id <= 500;
DELETE FROM c WHERE id <= 500;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
BEGIN ISOLATION LEVEL SERIALIZABLE;
SELECT count(*) FROM h WHERE id BETWEEN 1 AND 502;
SELECT count(*) FROM c WHERE id BETWEEN 1 AND 502;
-- two tuple locks each (ids 501 and 502), none for the deleted rows
SELECT relation::regclass, locktype, count(*)
  FROM pg_locks
  WHERE mode = 'SIReadLock' AND pid = pg_backend_pid()
    AND relation IN ('h'::regclass, 'c'::regclass)
  GROUP BY 1, 2 ORDER BY 1, 2;
COMMIT;
RESET enable_seqscan;
RESET enable_bitmapscan;
DROP SCHEMA column_siread CASCADE;
