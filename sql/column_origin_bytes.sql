-- What a block pays for its moved rows' origins (issue 12, W7 through the
-- delta; include/column/colblock.h kinds 5 and 6).  The origin xmins of
-- rows moved in batches are runs, bytes per batch: 8 + 12 a run (first
-- row, xid, command id).  An origin TID is kept while its moved version
-- (the stub) is there; once VACUUM removed it (no SERIALIZABLE reader held
-- a lock on it), the block's next version no longer carries it
-- (src/column/append.c).  The DEBUG1 lines name each new image's origin
-- sections.
CREATE TABLE ob (id int, v int) USING quickstep_column
  WITH (autovacuum_enabled = off);
BEGIN;
INSERT INTO ob SELECT g, g FROM generate_series(1, 300) g;
COMMIT;
BEGIN;
INSERT INTO ob SELECT g, g FROM generate_series(301, 600) g;
COMMIT;
BEGIN;
INSERT INTO ob SELECT g, g FROM generate_series(601, 900) g;
COMMIT;
CREATE TEMP TABLE before AS SELECT id, xmin::text AS x FROM ob;
-- three inserters: three runs (44 bytes); every row's origin TID
SET client_min_messages = debug1;
SELECT quickstep.merge('ob') AS moved;
RESET client_min_messages;
-- the stubs go
VACUUM ob;
INSERT INTO ob SELECT g, g FROM generate_series(901, 910) g;
-- four runs; only the 10 new rows keep an origin TID
SET client_min_messages = debug1;
SELECT quickstep.merge('ob') AS moved;
RESET client_min_messages;
-- the xmins they show did not change; a row per inserter
SELECT count(*) AS changed FROM ob JOIN before USING (id) WHERE ob.xmin::text <> before.x;
SELECT count(DISTINCT xmin::text) AS inserters, count(*) AS rows FROM ob;
-- a serializable write of a main row whose origin went: no error
BEGIN ISOLATION LEVEL SERIALIZABLE;
UPDATE ob SET v = -v WHERE id IN (5, 905);
COMMIT;
SELECT id, v FROM ob WHERE id IN (5, 905) ORDER BY id;
SELECT * FROM quickstep.check_table('ob');
DROP TABLE ob;
-- bulk loads: at a transaction's first command no origin (its rows show
-- the block entry's xmin and command); at a later one a run naming the
-- loader and its command (8 + 12 bytes), which VACUUM's freeze leaves
-- alone where it puts the loader's xid in the entry's command id
SET quickstep.column_delta_rows = 0;
CREATE TABLE ol (id int) USING quickstep_column WITH (autovacuum_enabled = off);
SET client_min_messages = debug1;
INSERT INTO ol SELECT g FROM generate_series(1, 100) g;
BEGIN;
INSERT INTO ol SELECT g FROM generate_series(101, 200) g;
INSERT INTO ol SELECT g FROM generate_series(201, 300) g;
COMMIT;
RESET client_min_messages;
VACUUM (FREEZE) ol;
SELECT cmin, count(*) FROM ol GROUP BY 1 ORDER BY 1::text;
SELECT * FROM quickstep.check_table('ol');
DROP TABLE ol;
RESET quickstep.column_delta_rows;
