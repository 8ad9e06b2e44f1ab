-- Column tables in transactions with subtransactions and DDL: the rows a
-- bulk load buffers survive a TRUNCATE whose subtransaction rolls back;
-- merge() and seal() are writes.  Each case runs on heap as well: the
-- outputs must be the same.
SET quickstep.column_delta_rows = 1000;
-- statements after merge() in its transaction read and change the rows it
-- moved: refused by default (src/merge/README.md §2), allowed for this test
SET quickstep.debug_merge_hold = on;

CREATE TABLE tl_heap (id int PRIMARY KEY, v text) USING heap;
CREATE TABLE tl_col (id int PRIMARY KEY, v text) USING quickstep_column;

-- 1000 rows to the delta, 2000 buffered for a block, then a TRUNCATE
-- rolled back to its savepoint: all 3000 rows are the table's at commit
BEGIN;
INSERT INTO tl_heap SELECT g, 'b' || g FROM generate_series(1, 3000) g;
SAVEPOINT s1;
TRUNCATE tl_heap;
ROLLBACK TO s1;
COMMIT;
BEGIN;
INSERT INTO tl_col SELECT g, 'b' || g FROM generate_series(1, 3000) g;
SAVEPOINT s1;
TRUNCATE tl_col;
ROLLBACK TO s1;
COMMIT;
SELECT count(*), sum(id), md5(string_agg(v, ',' ORDER BY id)) FROM tl_heap;
SELECT count(*), sum(id), md5(string_agg(v, ',' ORDER BY id)) FROM tl_col;
SELECT quickstep.check_table('tl_col') = 3000 AS clean;
-- the keys are taken (no orphaned index entries, no lost rows)
INSERT INTO tl_heap VALUES (2500, 'x');
INSERT INTO tl_col VALUES (2500, 'x');

-- the same through a PL/pgSQL exception block
DO $$ BEGIN
  INSERT INTO tl_col SELECT g, 'c' || g FROM generate_series(3001, 6000) g;
  BEGIN
    TRUNCATE tl_col;
    RAISE EXCEPTION 'undo the truncate';
  EXCEPTION WHEN raise_exception THEN NULL;
  END;
END $$;
DO $$ BEGIN
  INSERT INTO tl_heap SELECT g, 'c' || g FROM generate_series(3001, 6000) g;
  BEGIN
    TRUNCATE tl_heap;
    RAISE EXCEPTION 'undo the truncate';
  EXCEPTION WHEN raise_exception THEN NULL;
  END;
END $$;
SELECT count(*), sum(id) FROM tl_heap;
SELECT count(*), sum(id) FROM tl_col;
SELECT count(*) FROM tl_col WHERE id = 4500;
SELECT quickstep.check_table('tl_col') = 6001 AS clean;  -- and the failed INSERT's row

-- a TRUNCATE that commits empties the table, the buffered rows included
BEGIN;
INSERT INTO tl_col SELECT g, 'd' || g FROM generate_series(6001, 9000) g;
TRUNCATE tl_col;
INSERT INTO tl_col SELECT g, 'e' || g FROM generate_series(1, 1500) g;
COMMIT;
SELECT count(*), min(id), max(id), min(v) FROM tl_col;
SELECT quickstep.check_table('tl_col') = 1500 AS clean;

-- merge() and seal() write: refused in a READ ONLY transaction
BEGIN READ ONLY;
SELECT quickstep.merge('tl_col');
ROLLBACK;
BEGIN READ ONLY;
SELECT quickstep.seal('tl_col');
ROLLBACK;
SET default_transaction_read_only = on;
SELECT quickstep.merge('tl_col');
RESET default_transaction_read_only;
SELECT quickstep.merge('tl_col') >= 0 AS merged;

DROP TABLE tl_heap, tl_col;

-- a row heap refuses ("row is too big": a STORAGE PLAIN value over a page)
-- is refused by a bulk load too: its next version could never be written
SET quickstep.column_delta_rows = 0;
CREATE TABLE qwide_heap (id int, a text) USING heap;
CREATE TABLE qwide_col (id int, a text) USING quickstep_column;
ALTER TABLE qwide_heap ALTER COLUMN a SET STORAGE PLAIN;
ALTER TABLE qwide_col ALTER COLUMN a SET STORAGE PLAIN;
INSERT INTO qwide_heap SELECT g, CASE WHEN g = 1500 THEN repeat('x', 9000) ELSE 's' END
  FROM generate_series(1, 2000) g;
INSERT INTO qwide_col SELECT g, CASE WHEN g = 1500 THEN repeat('x', 9000) ELSE 's' END
  FROM generate_series(1, 2000) g;
-- values that TOAST can move out of line, and PLAIN values that fit, load
INSERT INTO qwide_heap SELECT g, repeat('y', 8000) FROM generate_series(1, 3) g;
INSERT INTO qwide_col SELECT g, repeat('y', 8000) FROM generate_series(1, 3) g;
ALTER TABLE qwide_heap ALTER COLUMN a SET STORAGE EXTENDED;
ALTER TABLE qwide_col ALTER COLUMN a SET STORAGE EXTENDED;
INSERT INTO qwide_heap SELECT g, repeat('z', 20000) FROM generate_series(1, 1200) g;
INSERT INTO qwide_col SELECT g, repeat('z', 20000) FROM generate_series(1, 1200) g;
UPDATE qwide_heap SET id = -id WHERE id = 2;
UPDATE qwide_col SET id = -id WHERE id = 2;
SELECT count(*), sum(id), sum(length(a)) FROM qwide_heap;
SELECT count(*), sum(id), sum(length(a)) FROM qwide_col;
SELECT quickstep.check_table('qwide_col') > 0 AS clean;
RESET quickstep.column_delta_rows;
DROP TABLE qwide_heap, qwide_col;

-- the smallest form heap gives a row decides, not the values' full size:
-- many short values, and a PLAIN value beside short ones, load as in heap
SET quickstep.column_delta_rows = 0;
DO $$
DECLARE am text;
BEGIN
  FOREACH am IN ARRAY ARRAY['heap', 'quickstep_column'] LOOP
    EXECUTE format('CREATE TABLE %I (%s) USING %I',
                   CASE am WHEN 'heap' THEN 'wide_heap' ELSE 'wide_col' END,
                   (SELECT string_agg('c' || g || ' text', ', ') FROM generate_series(1, 1200) g), am);
    EXECUTE format('INSERT INTO %I SELECT %s FROM generate_series(1, 3)',
                   CASE am WHEN 'heap' THEN 'wide_heap' ELSE 'wide_col' END,
                   (SELECT string_agg(quote_literal('x'), ', ') FROM generate_series(1, 1200) g));
  END LOOP;
END $$;
SELECT count(*), min(c1), max(c1200) FROM wide_heap;
SELECT count(*), min(c1), max(c1200) FROM wide_col;
CREATE TABLE plain_heap (p text, a text, b text, c text) USING heap;
CREATE TABLE plain_col (p text, a text, b text, c text) USING quickstep_column;
ALTER TABLE plain_heap ALTER COLUMN p SET STORAGE PLAIN;
ALTER TABLE plain_col ALTER COLUMN p SET STORAGE PLAIN;
INSERT INTO plain_heap SELECT repeat('y', 8100), 'x', 'x', 'x' FROM generate_series(1, 2);
INSERT INTO plain_col SELECT repeat('y', 8100), 'x', 'x', 'x' FROM generate_series(1, 2);
UPDATE plain_col SET a = 'z';
SELECT count(*), sum(length(p)), min(a) FROM plain_col;
RESET quickstep.column_delta_rows;
DROP TABLE wide_heap, wide_col, plain_heap, plain_col;

-- rows still buffered survive SET TABLESPACE and a TRUNCATE rolled back after it
SET allow_in_place_tablespaces = on;
CREATE TABLESPACE regress_column_txn_ts LOCATION '';
RESET allow_in_place_tablespaces;
CREATE TABLE pt (id int PRIMARY KEY, v text) USING quickstep_column;
SET quickstep.column_delta_rows = 0;
BEGIN;
INSERT INTO pt SELECT g, 'x' || g FROM generate_series(1, 2000) g;
SAVEPOINT s2;
ALTER TABLE pt SET TABLESPACE regress_column_txn_ts;
TRUNCATE pt;
ROLLBACK TO s2;
COMMIT;
RESET quickstep.column_delta_rows;
SELECT count(*), sum(id) FROM pt;
SELECT quickstep.check_table('pt') = 2000 AS clean;
DROP TABLE pt;
DROP TABLESPACE regress_column_txn_ts;

-- check_table is the table owner's
CREATE TABLE own_col (a int) USING quickstep_column;
CREATE ROLE regress_column_txn_other;
GRANT USAGE ON SCHEMA quickstep TO regress_column_txn_other;
GRANT SELECT ON own_col TO regress_column_txn_other;
SET ROLE regress_column_txn_other;
SELECT quickstep.check_table('own_col');
RESET ROLE;
DROP TABLE own_col;
REVOKE USAGE ON SCHEMA quickstep FROM regress_column_txn_other;
DROP ROLE regress_column_txn_other;

-- quickstep.blocks() shows a column's min and max only to who may read it
CREATE TABLE secret_col (id int, ssn text) USING quickstep_column;
SET quickstep.column_delta_rows = 0;
INSERT INTO secret_col SELECT g, 'SSN-' || lpad(g::text, 9, '0') FROM generate_series(1, 3000) g;
RESET quickstep.column_delta_rows;
CREATE ROLE regress_column_txn_reader;
GRANT USAGE ON SCHEMA quickstep TO regress_column_txn_reader;
GRANT SELECT (id) ON secret_col TO regress_column_txn_reader;
SET ROLE regress_column_txn_reader;
SELECT column_name, min, max FROM quickstep.blocks('secret_col') ORDER BY block_id, column_name;
RESET ROLE;
GRANT SELECT ON secret_col TO regress_column_txn_reader;
SET ROLE regress_column_txn_reader;
SELECT column_name, min, max FROM quickstep.blocks('secret_col') ORDER BY block_id, column_name;
RESET ROLE;
DROP TABLE secret_col;
REVOKE USAGE ON SCHEMA quickstep FROM regress_column_txn_reader;
DROP ROLE regress_column_txn_reader;

-- quickstep.blocks() lists no block of a rolled-back load, merge or seal
-- (before VACUUM retires their versions too)
CREATE TABLE rb_col (id int, v text) USING quickstep_column;
INSERT INTO rb_col SELECT g, 'v' || g FROM generate_series(1, 500) g;
SELECT block_id, state, rows FROM quickstep.blocks('rb_col') WHERE column_name = 'id';
BEGIN;
SELECT quickstep.merge('rb_col') > 0 AS merged;
SELECT block_id, state, rows FROM quickstep.blocks('rb_col') WHERE column_name = 'id';
ROLLBACK;
SELECT block_id, state, rows FROM quickstep.blocks('rb_col') WHERE column_name = 'id';
SELECT quickstep.merge('rb_col') AS merged;
BEGIN;
SELECT quickstep.seal('rb_col') AS sealed;
SELECT block_id, state, rows FROM quickstep.blocks('rb_col') WHERE column_name = 'id' ORDER BY block_id;
ROLLBACK;
SELECT block_id, state, rows FROM quickstep.blocks('rb_col') WHERE column_name = 'id' ORDER BY block_id;
BEGIN;
SET LOCAL quickstep.column_delta_rows = 0;
INSERT INTO rb_col SELECT g, 'w' || g FROM generate_series(1, 3000) g;
SELECT block_id, state, rows FROM quickstep.blocks('rb_col') WHERE column_name = 'id' ORDER BY block_id;
ROLLBACK;
SELECT block_id, state, rows FROM quickstep.blocks('rb_col') WHERE column_name = 'id' ORDER BY block_id;
SELECT count(*), sum(id) FROM rb_col;
SELECT quickstep.check_table('rb_col') >= 500 AS clean;  -- counts dead rows too
DROP TABLE rb_col;
