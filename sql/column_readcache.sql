-- Block readers kept across statements and transactions (src/column/readcache.c):
-- index fetches of main rows must see every change of the table's storage
-- or descriptor, never a reader of what was there before.
SET quickstep.column_delta_rows = 0;
CREATE TABLE rc (id int PRIMARY KEY, v text, n int8) USING quickstep_column;
INSERT INTO rc SELECT g, 'a' || g, g * 10 FROM generate_series(1, 3000) g;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT count(*) AS main_blocks FROM quickstep.blocks('rc');
-- read through the index: the block's reader is now cached
SELECT id, v, n FROM rc WHERE id IN (1, 1500, 3000) ORDER BY id;
BEGIN;
SELECT id, v, n FROM rc WHERE id = 2999;
COMMIT;
-- TRUNCATE and a new load: new storage, other values
TRUNCATE rc;
INSERT INTO rc SELECT g, 'b' || g, -g FROM generate_series(1, 3000) g;
SELECT id, v, n FROM rc WHERE id IN (1, 1500, 3000) ORDER BY id;
-- a column added with a default: old blocks read its missing value
ALTER TABLE rc ADD COLUMN w int DEFAULT 7;
SELECT id, v, n, w FROM rc WHERE id IN (2, 2999) ORDER BY id;
-- a dropped column
ALTER TABLE rc DROP COLUMN v;
SELECT * FROM rc WHERE id IN (3, 2998) ORDER BY id;
-- a rewrite (new relfilenode, rows moved into new blocks)
VACUUM FULL rc;
SELECT * FROM rc WHERE id IN (4, 2997) ORDER BY id;
-- a type change rewrites the table
ALTER TABLE rc ALTER COLUMN n TYPE numeric;
SELECT * FROM rc WHERE id IN (5, 2996) ORDER BY id;
-- dropped and made again under the same name, other data
DROP TABLE rc;
CREATE TABLE rc (id int PRIMARY KEY, v text, n int8) USING quickstep_column;
INSERT INTO rc SELECT g, 'c' || g, g * 100 FROM generate_series(1, 3000) g;
SELECT id, v, n FROM rc WHERE id IN (1, 1500, 3000) ORDER BY id;
-- more blocks than the cache keeps (quickstep.column_fetch_cache: 1MB
-- holds a few of them), read in turns, agree with a sequential scan
CREATE TABLE rc2 (id int PRIMARY KEY, k int) USING quickstep_column WITH (quickstep.rows_per_block = 1000);
INSERT INTO rc2 SELECT g, g % 97 FROM generate_series(1, 40000) g;
SELECT count(*) AS blocks FROM quickstep.blocks('rc2');
CREATE TEMP TABLE probe AS SELECT (g * 7919) % 40000 + 1 AS id FROM generate_series(1, 2000) g;
SET quickstep.column_fetch_cache = '1MB';
SELECT sum(r.k) AS by_index FROM probe p, LATERAL (SELECT k FROM rc2 WHERE rc2.id = p.id) r;
RESET quickstep.column_fetch_cache;
-- the readers kept hold about the cap (1MB) plus one block's open columns:
-- columns a reader opens after its lookup are counted at the next lookup
-- of any reader (they were not: 16 MB of readers were kept here)
CREATE TABLE rm (id int PRIMARY KEY, b text) USING quickstep_column
  WITH (quickstep.rows_per_block = 1000);
ALTER TABLE rm ALTER COLUMN b SET STORAGE plain;
INSERT INTO rm SELECT g, (SELECT string_agg(md5((g * 100 + x)::text), '') FROM generate_series(1, 60) x)
  FROM generate_series(1, 8000) g;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SET quickstep.column_fetch_cache = '1MB';
SELECT count(*), sum(length(b)) FROM rm WHERE id IN (1, 1001, 2001, 3001, 4001, 5001, 6001, 7001);
SELECT sum(total_bytes) < 4 * 1048576 AS about_the_cap
  FROM pg_backend_memory_contexts
 WHERE name = 'quickstep column block reader';
RESET quickstep.column_fetch_cache;
RESET enable_seqscan;
RESET enable_bitmapscan;
DROP TABLE rm;
RESET enable_seqscan;
RESET enable_bitmapscan;
SET enable_indexscan = off;
SET enable_bitmapscan = off;
SELECT sum(rc2.k) AS by_seqscan FROM probe p JOIN rc2 USING (id);
RESET enable_indexscan;
RESET enable_bitmapscan;
-- a main row updated and deleted: fetches read its current state
UPDATE rc SET n = 1 WHERE id = 10;
DELETE FROM rc WHERE id = 11;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT id, v, n FROM rc WHERE id IN (10, 11, 12) ORDER BY id;
RESET ALL;
DROP TABLE rc, rc2;

-- TRUNCATE of a table created in the same transaction keeps its storage
-- and starts block ids over: a TID fetch after a load of the same size
-- read the old block's values from the backend's cached reader (5, not
-- 100005), as no relcache invalidation follows without an index
BEGIN;
CREATE TABLE rt (id int, v int) USING quickstep_column;
SET LOCAL quickstep.column_delta_rows = 0;
INSERT INTO rt SELECT g, g FROM generate_series(1, 1000) g;
SELECT * FROM rt WHERE ctid = (SELECT ctid FROM rt WHERE id = 5);
TRUNCATE rt;
INSERT INTO rt SELECT g, g + 100000 FROM generate_series(1, 1000) g;
SELECT * FROM rt WHERE ctid = (SELECT ctid FROM rt WHERE id = 5);
ROLLBACK;
