-- What a block pays for its moved rows' origins (issue 12, W7 through the
-- delta; include/column/colblock.h kinds 5 and 6).  The origin xmins of
-- rows moved in batches are runs, bytes per batch: 8 + 8 a run.  An origin
-- TID is kept while its moved version (the stub) is there; once VACUUM
-- removed it (no SERIALIZABLE reader held a lock on it), the block's next
-- version no longer carries it (src/column/append.c).  The DEBUG1 lines
-- name each new image's origin sections.
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
-- three inserters: three runs (32 bytes); every row's origin TID
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
