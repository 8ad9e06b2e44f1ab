-- The xmin system column of a column table's bulk-loaded rows keeps the
-- loader's xid when VACUUM freezes them, as heap's freeze keeps a tuple's
-- raw xmin (src/column/README.md section 4.2): an application that uses
-- xmin as a row version (UPDATE ... WHERE id = $1 AND xmin = $2) still
-- finds the row.  Each statement runs on the heap twin xh as well; the
-- outputs must be the same.  Before, VACUUM turned xmin into 2.
SET quickstep.column_delta_rows = 0;	-- straight into blocks
CREATE TABLE xc (id int, v int) USING quickstep_column
  WITH (autovacuum_enabled = off);
CREATE TABLE xh (id int, v int) WITH (autovacuum_enabled = off);
CREATE TABLE loader (x xid);
BEGIN;
INSERT INTO xc SELECT g, g FROM generate_series(1, 1000) g;
INSERT INTO xh SELECT g, g FROM generate_series(1, 1000) g;
INSERT INTO loader SELECT txid_current()::text::xid;
COMMIT;
SELECT count(*) FILTER (WHERE xmin = (SELECT x FROM loader)) AS loaders_rows FROM xc;
SELECT count(*) FILTER (WHERE xmin = (SELECT x FROM loader)) AS loaders_rows FROM xh;
VACUUM (FREEZE) xc;
VACUUM (FREEZE) xh;
-- frozen: relfrozenxid is past the loader on both
SELECT relname, relfrozenxid::text::bigint > (SELECT x::text::bigint FROM loader) AS frozen
  FROM pg_class WHERE relname IN ('xc', 'xh') ORDER BY relname;
SELECT count(*) FILTER (WHERE xmin = (SELECT x FROM loader)) AS loaders_rows FROM xc;
SELECT count(*) FILTER (WHERE xmin = (SELECT x FROM loader)) AS loaders_rows FROM xh;
-- the row version check of an ORM
UPDATE xc SET v = -v WHERE id = 7 AND xmin = (SELECT x FROM loader) RETURNING id, v;
UPDATE xh SET v = -v WHERE id = 7 AND xmin = (SELECT x FROM loader) RETURNING id, v;
-- rows whose delete-map page is made after the freeze
DELETE FROM xc WHERE id = 5;
DELETE FROM xh WHERE id = 5;
SELECT count(*) FILTER (WHERE xmin = (SELECT x FROM loader)) AS loaders_rows FROM xc;
SELECT count(*) FILTER (WHERE xmin = (SELECT x FROM loader)) AS loaders_rows FROM xh;
-- an index scan and a TID fetch show it too
CREATE INDEX xc_id ON xc (id);
SET enable_seqscan = off;
SELECT id, xmin = (SELECT x FROM loader) AS loaders FROM xc WHERE id IN (3, 7) ORDER BY id;
RESET enable_seqscan;
SELECT xmin = (SELECT x FROM loader) AS loaders FROM xc
  WHERE ctid = (SELECT ctid FROM xc WHERE id = 9);
SELECT quickstep.check_table('xc') IS NOT NULL AS checked;
DROP TABLE xc, xh, loader;
