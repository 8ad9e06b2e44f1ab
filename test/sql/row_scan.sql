--
-- Row layout :am (set by the caller, sql/<layout>_scan.sql): scans
-- (sequential, backward, TID, TID range, index, index-only, bitmap, sample,
-- parallel), every index AM, TOAST, TEMP and UNLOGGED tables; results
-- compared with heap.
--
CREATE TABLE hs (id int, t text, arr int[], p point, r int4range, doc tsvector) USING heap;
CREATE TABLE qs (id int, t text, arr int[], p point, r int4range, doc tsvector) USING :am;
INSERT INTO hs SELECT g, md5(g::text), ARRAY[g % 50, g % 7], point(g % 100, g / 100),
  int4range(g, g + 5), to_tsvector('simple', 'w' || (g % 30) || ' x' || (g % 11))
  FROM generate_series(1, 10000) g;
INSERT INTO qs SELECT * FROM hs;
DELETE FROM hs WHERE id % 9 = 0;
DELETE FROM qs WHERE id % 9 = 0;
UPDATE hs SET t = upper(t) WHERE id % 4 = 0;
UPDATE qs SET t = upper(t) WHERE id % 4 = 0;

-- without updates the physical layout is heap's: same pages, same TIDs
-- (after updates it differs: heap prunes HOT chains, this engine does not)
CREATE TABLE hi USING heap AS SELECT id, t FROM hs ORDER BY id;
CREATE TABLE qi USING :am AS SELECT id, t FROM hs ORDER BY id;
SELECT (SELECT count(*) FROM (SELECT ctid, * FROM hi EXCEPT SELECT ctid, * FROM qi) a) AS tid_diffs;
SELECT (SELECT max(ctid) FROM hi) = (SELECT max(ctid) FROM qi) AS same_last_tid;

-- sequential scans, forward and backward
SELECT count(*), sum(id), md5(string_agg(t, ',' ORDER BY id)) = (SELECT md5(string_agg(t, ',' ORDER BY id)) FROM hs) AS same FROM qs;
BEGIN;
DECLARE cq SCROLL CURSOR FOR SELECT id FROM qi;
DECLARE ch SCROLL CURSOR FOR SELECT id FROM hi;
FETCH 3 FROM cq;
FETCH 3 FROM ch;
FETCH LAST FROM cq;
FETCH LAST FROM ch;
FETCH BACKWARD 3 FROM cq;
FETCH BACKWARD 3 FROM ch;
MOVE ABSOLUTE 4000 IN cq;
MOVE ABSOLUTE 4000 IN ch;
FETCH RELATIVE -2 FROM cq;
FETCH RELATIVE -2 FROM ch;
COMMIT;

-- TID scans and TID range scans
SELECT id FROM qs WHERE ctid = '(3,7)';
SELECT id FROM hs WHERE ctid = '(3,7)';
SELECT id FROM qs WHERE ctid = '(3,700)';
SELECT id FROM qs WHERE ctid = '(30000,1)';
SELECT count(*), min(id), max(id) FROM qi WHERE ctid > '(10,5)' AND ctid <= '(20,3)';
SELECT count(*), min(id), max(id) FROM hi WHERE ctid > '(10,5)' AND ctid <= '(20,3)';
SELECT count(*), min(id), max(id) FROM qi WHERE ctid < '(1,3)';
SELECT count(*), min(id), max(id) FROM hi WHERE ctid < '(1,3)';
SELECT count(*) FROM qs WHERE ctid >= '(1000,0)';
SELECT count(*) FROM qs WHERE ctid < '(0,0)';

-- TABLESAMPLE: same pages and offsets as heap, so the same sample
SELECT count(*), sum(id) FROM qi TABLESAMPLE SYSTEM (30) REPEATABLE (7);
SELECT count(*), sum(id) FROM hi TABLESAMPLE SYSTEM (30) REPEATABLE (7);
SELECT count(*), sum(id) FROM qi TABLESAMPLE BERNOULLI (10) REPEATABLE (3);
SELECT count(*), sum(id) FROM hi TABLESAMPLE BERNOULLI (10) REPEATABLE (3);
SELECT count(*) FROM qi TABLESAMPLE SYSTEM (0);
SELECT count(*) FROM qi TABLESAMPLE BERNOULLI (100);

-- every index AM; each query on heap and on the layout must agree
CREATE INDEX qs_id ON qs (id);
CREATE UNIQUE INDEX qs_t ON qs (t);
CREATE INDEX qs_hash ON qs USING hash (t);
CREATE INDEX qs_gin ON qs USING gin (arr);
CREATE INDEX qs_doc ON qs USING gin (doc);
CREATE INDEX qs_gist ON qs USING gist (p);
CREATE INDEX qs_spg ON qs USING spgist (r);
CREATE INDEX qs_brin ON qs USING brin (id) WITH (pages_per_range = 4);
CREATE INDEX qs_expr ON qs ((id % 100)) WHERE id > 5000;
CREATE INDEX CONCURRENTLY qs_cic ON qs (id, t);
REINDEX TABLE qs;
SELECT indexrelid::regclass, indisvalid FROM pg_index WHERE indrelid = 'qs'::regclass ORDER BY indexrelid::regclass::text;

CREATE FUNCTION nsm_idx_queries(tab text) RETURNS TABLE (q int, n bigint, s bigint)
LANGUAGE plpgsql AS $$
DECLARE
  qs text[] := ARRAY[
    'SELECT count(*), sum(id) FROM %I WHERE id BETWEEN 100 AND 2000',
    'SELECT count(*), sum(id) FROM %I WHERE t = md5(''77'')',
    'SELECT count(*), sum(id) FROM %I WHERE arr @> ARRAY[7]',
    'SELECT count(*), sum(id) FROM %I WHERE doc @@ to_tsquery(''simple'', ''w3 & x4'')',
    'SELECT count(*), sum(id) FROM %I WHERE p <@ box ''((0,0),(20,20))''',
    'SELECT count(*), sum(id) FROM %I WHERE r @> 5000',
    'SELECT count(*), sum(id) FROM %I WHERE id %% 100 = 42 AND id > 5000',
    'SELECT count(*), sum(id) FROM (SELECT id FROM %I ORDER BY id DESC LIMIT 100) x'];
BEGIN
  FOR i IN 1 .. array_length(qs, 1) LOOP
    q := i;
    EXECUTE format(qs[i], tab) INTO n, s;
    RETURN NEXT;
  END LOOP;
END $$;

CREATE INDEX hs_id ON hs (id);
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT * FROM nsm_idx_queries('qs') EXCEPT SELECT * FROM nsm_idx_queries('hs');
EXPLAIN (COSTS OFF) SELECT id FROM qs WHERE id BETWEEN 100 AND 110;
SELECT id FROM qs WHERE id BETWEEN 100 AND 110 ORDER BY id;
-- index-only scans must check visibility in the table (no visibility map)
SELECT count(*) FROM qs WHERE id BETWEEN 100 AND 2000;
RESET enable_bitmapscan;
SET enable_indexscan = off;
SELECT * FROM nsm_idx_queries('qs') EXCEPT SELECT * FROM nsm_idx_queries('hs');
EXPLAIN (COSTS OFF) SELECT count(*) FROM qs WHERE arr @> ARRAY[7];
-- lossy bitmap pages
SET work_mem = '64kB';
SELECT count(*), sum(id) FROM qs WHERE id BETWEEN 10 AND 9000;
RESET work_mem;
RESET enable_indexscan;
RESET enable_seqscan;
SELECT * FROM nsm_idx_queries('qs') EXCEPT SELECT * FROM nsm_idx_queries('hs');

-- parallel sequential scan
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET enable_indexscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT count(*), sum(id) FROM qs;
SELECT count(*), sum(id) FROM qs;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
RESET enable_indexscan;
RESET enable_bitmapscan;

-- TOAST: large values out of line, compressed inline, updated, deleted
CREATE TABLE qt (id int, big text, bin bytea) USING :am;
SELECT reltoastrelid <> 0 AS has_toast FROM pg_class WHERE relname = 'qt';
INSERT INTO qt SELECT g, repeat(md5(g::text), 2000 * g), decode(repeat('ab', 5000), 'hex') FROM generate_series(1, 5) g;
INSERT INTO qt VALUES (6, (SELECT string_agg(md5(g::text), '') FROM generate_series(1, 5000) g), NULL);
SELECT id, length(big), md5(big), length(bin) FROM qt ORDER BY id;
UPDATE qt SET big = big || 'tail' WHERE id = 2;
UPDATE qt SET id = id + 10 WHERE id = 3;
DELETE FROM qt WHERE id = 4;
SELECT id, length(big), right(big, 4) FROM qt ORDER BY id;

-- TEMP and UNLOGGED tables
CREATE TEMP TABLE qtemp (a int, b text) USING :am;
INSERT INTO qtemp SELECT g, 't' || g FROM generate_series(1, 2000) g;
UPDATE qtemp SET b = b || '!' WHERE a % 2 = 0;
DELETE FROM qtemp WHERE a % 3 = 0;
CREATE INDEX ON qtemp (a);
SELECT count(*), sum(a), count(*) FILTER (WHERE b LIKE '%!') FROM qtemp;
CREATE UNLOGGED TABLE qunl (a int) USING :am;
INSERT INTO qunl SELECT generate_series(1, 1000);
SELECT relpersistence, count(*) FROM pg_class c, qunl WHERE c.relname = 'qunl' GROUP BY 1;

DROP TABLE hs, qs, hi, qi, qt, qtemp, qunl;
DROP FUNCTION nsm_idx_queries(text);
