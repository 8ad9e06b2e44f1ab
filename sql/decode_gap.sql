--
-- A change that cannot be decoded is never a silent gap (src/wal/): its
-- writer logs it as undecodable, decoding a committed transaction that
-- made one stops with an error naming the table and the reason, and
-- CREATE / ALTER PUBLICATION warn about the tables that can make one.
-- Every change to a row table is decodable; quickstep.debug_undecodable
-- (superuser, for tests) makes every quickstep table answer as one that
-- is not.  Needs wal_level = logical.
--
CREATE SCHEMA decode_gap;
SET search_path = decode_gap, public;
CREATE TABLE gap_q (id int PRIMARY KEY, v text) USING quickstep_nsm;
CREATE TABLE gap_p (id int PRIMARY KEY, v text) USING quickstep_pax;
CREATE TABLE gap_h (id int PRIMARY KEY, v text) USING heap;
CREATE TABLE gap_part (id int PRIMARY KEY, v text) PARTITION BY RANGE (id);
CREATE TABLE gap_part1 PARTITION OF gap_part FOR VALUES FROM (0) TO (100) USING quickstep_hpl;

-- decodable tables: no warning
CREATE PUBLICATION gap_pub FOR TABLE gap_h, gap_q;

SET quickstep.debug_undecodable = on;
-- now every quickstep table in the publication, also partitions
ALTER PUBLICATION gap_pub ADD TABLE gap_p, gap_part;
CREATE PUBLICATION gap_schema_pub FOR TABLES IN SCHEMA decode_gap;
ALTER PUBLICATION gap_pub DROP TABLE gap_p;
RESET quickstep.debug_undecodable;
DROP PUBLICATION gap_pub, gap_schema_pub;

SELECT 'init' FROM pg_create_logical_replication_slot('qs_decode_gap', 'test_decoding');
INSERT INTO gap_q VALUES (1, 'decodable');
-- an undecodable change of a transaction that aborts: skipped
SET quickstep.debug_undecodable = on;
BEGIN;
INSERT INTO gap_q VALUES (2, 'aborted');
UPDATE gap_q SET v = 'aborted' WHERE id = 1;
ROLLBACK;
-- heap tables are not concerned
INSERT INTO gap_h VALUES (1, 'heap');
RESET quickstep.debug_undecodable;
SELECT data FROM pg_logical_slot_get_changes('qs_decode_gap', NULL, NULL,
                                             'include-xids', '0', 'skip-empty-xacts', '1');

-- a committed one: decoding stops there, at every attempt
SET quickstep.debug_undecodable = on;
INSERT INTO gap_q VALUES (3, 'undecodable');
UPDATE gap_p SET v = 'x';
RESET quickstep.debug_undecodable;
SELECT pg_current_wal_lsn() AS after_gap \gset
INSERT INTO gap_q VALUES (4, 'after');
\set VERBOSITY terse
SELECT data FROM pg_logical_slot_get_changes('qs_decode_gap', NULL, NULL,
                                             'include-xids', '0', 'skip-empty-xacts', '1');
SELECT data FROM pg_logical_slot_peek_changes('qs_decode_gap', NULL, NULL,
                                              'include-xids', '0', 'skip-empty-xacts', '1');
\set VERBOSITY default
-- the way past it (the hint): fast-forwarding queues no changes
SELECT 'advanced' FROM pg_replication_slot_advance('qs_decode_gap', :'after_gap');
SELECT data FROM pg_logical_slot_get_changes('qs_decode_gap', NULL, NULL,
                                             'include-xids', '0', 'skip-empty-xacts', '1');
SELECT pg_drop_replication_slot('qs_decode_gap');

-- A user catalog table is read by output plugins through historic
-- snapshots, which need combo-CID records quickstep tables do not write:
-- its writes are refused at wal_level = logical, with the way out.
CREATE TABLE ucat (a int) USING quickstep_nsm WITH (user_catalog_table = true);
INSERT INTO ucat VALUES (1);
ALTER TABLE ucat RESET (user_catalog_table);
INSERT INTO ucat VALUES (1);
SELECT * FROM ucat;

RESET search_path;
SET client_min_messages = warning;
DROP SCHEMA decode_gap CASCADE;
RESET client_min_messages;
