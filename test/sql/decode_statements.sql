--
-- Statements decoded by test/sql/row_decode.sql, run twice: once with
-- default_table_access_method = heap, once with the layout under test, each
-- time in a schema of its own.  Every table is created here without USING,
-- so both runs execute the same text.  Multi-row statements only where the
-- order of their changes does not depend on the physical row order.
--
CREATE TABLE t (id int PRIMARY KEY, v text, n numeric, b bool, arr int[],
				ts timestamptz, j jsonb);
-- a deterministic, poorly compressible 100 kB value: stored out of line
CREATE FUNCTION big(seed int, kb int) RETURNS text LANGUAGE sql IMMUTABLE AS
$$ SELECT string_agg(md5((seed * 100000 + g)::text), '') FROM generate_series(1, kb * 32) g $$;

-- inserts: one row, several rows, NULLs, every kind of datum
INSERT INTO t VALUES (1, 'one', 1.5, true, '{1,2}', '2024-01-02 03:04:05+00', '{"a": 1}');
INSERT INTO t VALUES (2, NULL, NULL, NULL, NULL, NULL, NULL), (3, '', 0, false, '{}', 'infinity', '[]');
-- update of a non-key column: new tuple only (no old key)
UPDATE t SET v = 'one-u', n = n * 2 WHERE id = 1;
-- update of the key: old key logged
UPDATE t SET id = 30 WHERE id = 3;
-- delete: old key
DELETE FROM t WHERE id = 2;
-- several statements in one transaction, a savepoint rolled back, an
-- update of a row inserted in the same transaction
BEGIN;
INSERT INTO t VALUES (4, 'four');
SAVEPOINT s1;
INSERT INTO t VALUES (5, 'five');
UPDATE t SET v = 'lost' WHERE id = 4;
ROLLBACK TO s1;
INSERT INTO t VALUES (6, 'six');
UPDATE t SET v = 'four-u' WHERE id = 4;
DELETE FROM t WHERE id = 6;
COMMIT;
-- an aborted transaction decodes as nothing
BEGIN;
INSERT INTO t VALUES (7, 'seven');
UPDATE t SET v = 'x' WHERE id = 1;
ROLLBACK;
-- ON CONFLICT: insert path (speculative insertion confirmed), DO UPDATE
-- path (the existing row updated), DO NOTHING
INSERT INTO t VALUES (8, 'eight') ON CONFLICT (id) DO UPDATE SET v = t.v || '-c';
INSERT INTO t VALUES (8, 'eight') ON CONFLICT (id) DO UPDATE SET v = t.v || '-c';
INSERT INTO t VALUES (8, 'eight') ON CONFLICT (id) DO NOTHING;
INSERT INTO t VALUES (9, 'nine') ON CONFLICT DO NOTHING;
-- COPY: multi-insert
COPY t (id, v, n) FROM stdin;
10	ten	10
11	eleven	\N
12	twelve	12.25
\.

-- TOAST: out-of-line values inserted (also by COPY and ON CONFLICT), an
-- update leaving them unchanged (heap logs the TOAST pointer: decoded as
-- unchanged-toast-datum), an update replacing one, a delete
INSERT INTO t (id, v) VALUES (20, big(20, 100));
INSERT INTO t (id, v) VALUES (21, big(21, 100)) ON CONFLICT (id) DO UPDATE SET v = excluded.v;
INSERT INTO t (id, v) VALUES (21, big(22, 100)) ON CONFLICT (id) DO UPDATE SET v = excluded.v;
BEGIN;
INSERT INTO t (id, v, n) SELECT 22, big(23, 50), 1;
INSERT INTO t (id, v, n) SELECT 23, big(24, 50), 2;
COMMIT;
UPDATE t SET n = 20 WHERE id = 20;
UPDATE t SET v = big(25, 100) WHERE id = 22;
UPDATE t SET v = 'short now' WHERE id = 23;
DELETE FROM t WHERE id = 20;
CREATE TABLE big_src AS SELECT g AS id, big(g, 4) AS v FROM generate_series(100, 102) g;
-- (through a file in the server's data directory)
SELECT current_setting('data_directory') || '/qs_decode_copy.data' AS copyfile \gset
COPY (SELECT id, v FROM big_src ORDER BY id) TO :'copyfile';
COPY t (id, v) FROM :'copyfile';
-- TRUNCATE is core's record; it must still be decoded for our tables
TRUNCATE big_src;

-- REPLICA IDENTITY FULL: the whole old row, TOASTed values inline
CREATE TABLE f (a int, b text, c int);
ALTER TABLE f REPLICA IDENTITY FULL;
INSERT INTO f VALUES (1, 'x', 1), (2, big(2, 8), 2);
UPDATE f SET c = 10 WHERE a = 1;
UPDATE f SET c = 20 WHERE a = 2;
DELETE FROM f WHERE a = 1;
DELETE FROM f WHERE a = 2;

-- REPLICA IDENTITY USING INDEX: the index's columns
CREATE TABLE u (a int, b int NOT NULL, c text);
CREATE UNIQUE INDEX u_b ON u (b);
ALTER TABLE u REPLICA IDENTITY USING INDEX u_b;
INSERT INTO u VALUES (1, 10, 'x');
UPDATE u SET c = 'y' WHERE b = 10;
UPDATE u SET a = 2 WHERE b = 10;
UPDATE u SET b = 11 WHERE b = 10;
DELETE FROM u WHERE b = 11;

-- REPLICA IDENTITY NOTHING, and DEFAULT without a primary key: no old key
CREATE TABLE nothing (a int PRIMARY KEY, b text);
ALTER TABLE nothing REPLICA IDENTITY NOTHING;
INSERT INTO nothing VALUES (1, 'x');
UPDATE nothing SET a = 2;
DELETE FROM nothing;
CREATE TABLE nokey (a int, b text);
INSERT INTO nokey VALUES (1, 'x');
UPDATE nokey SET a = 2;
DELETE FROM nokey;

-- a key column stored out of line: heap logs the old key on every update
CREATE TABLE ext (k text PRIMARY KEY, n int);
ALTER TABLE ext ALTER COLUMN k SET STORAGE EXTERNAL;
INSERT INTO ext VALUES (left(big(3, 3), 2100), 1);
UPDATE ext SET n = 2;
DELETE FROM ext;

-- an update that moves a row to another partition: delete + insert
CREATE TABLE p (k int PRIMARY KEY, v text) PARTITION BY RANGE (k);
CREATE TABLE p1 PARTITION OF p FOR VALUES FROM (0) TO (100);
CREATE TABLE p2 PARTITION OF p FOR VALUES FROM (100) TO (200);
INSERT INTO p VALUES (1, 'a'), (150, 'b');
UPDATE p SET k = 101 WHERE k = 1;
UPDATE p SET v = 'bb' WHERE k = 150;
DELETE FROM p WHERE k = 101;

-- a transaction larger than logical_decoding_work_mem (spilled to disk)
BEGIN;
INSERT INTO t (id, v) SELECT g, 'spill ' || g FROM generate_series(1000, 1999) g;
UPDATE t SET v = v || '-u' WHERE id = 1500;
DELETE FROM t WHERE id = 1000;
COMMIT;

-- two-phase commit: decoded at COMMIT PREPARED (a transaction that merged
-- a column table cannot be prepared: no forced merge in it)
BEGIN;
SET LOCAL quickstep.debug_force_merge = off;
INSERT INTO t VALUES (40, 'prepared');
UPDATE t SET v = 'prepared-u' WHERE id = 1;
PREPARE TRANSACTION 'qs_decode_2pc';
COMMIT PREPARED 'qs_decode_2pc';
