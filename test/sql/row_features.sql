--
-- Row layout :am (set by the caller, sql/<layout>_features.sql): MERGE,
-- triggers (row, statement, transition tables), data-modifying CTEs,
-- UPDATE ... FROM, WHERE CURRENT OF, generated and identity columns,
-- exclusion constraints with ON CONFLICT DO NOTHING, nested-loop bitmap
-- rescans.  The same script runs on heap first, then on the layout: the
-- two halves of the output must be identical.
--
CREATE FUNCTION nsm_tgf() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO tlog VALUES (TG_OP, OLD::text, NEW::text);
  IF TG_WHEN = 'BEFORE' AND TG_OP = 'UPDATE' THEN NEW.v := NEW.v || '+bt'; END IF;
  RETURN COALESCE(NEW, OLD);
END $$;

-- heap
SET default_table_access_method = heap;
CREATE TABLE m1 (id int PRIMARY KEY, v int);
CREATE TABLE m2 (id int, v int);
INSERT INTO m1 SELECT g, g FROM generate_series(1, 100) g;
INSERT INTO m2 SELECT g, g * 10 FROM generate_series(50, 150) g;
MERGE INTO m1 USING m2 ON m1.id = m2.id
  WHEN MATCHED AND m2.v > 1000 THEN DELETE
  WHEN MATCHED THEN UPDATE SET v = m2.v
  WHEN NOT MATCHED THEN INSERT VALUES (m2.id, m2.v);
SELECT count(*), sum(v) FROM m1;
CREATE TABLE tg (id int PRIMARY KEY, v text);
CREATE TABLE tlog (op text, old text, new text);
CREATE TRIGGER b BEFORE UPDATE ON tg FOR EACH ROW EXECUTE FUNCTION nsm_tgf();
CREATE TRIGGER a AFTER INSERT OR UPDATE OR DELETE ON tg FOR EACH ROW EXECUTE FUNCTION nsm_tgf();
CREATE TRIGGER s AFTER UPDATE ON tg REFERENCING OLD TABLE AS o NEW TABLE AS n
  FOR EACH STATEMENT EXECUTE FUNCTION nsm_tgf();
INSERT INTO tg VALUES (1, 'a'), (2, 'b');
UPDATE tg SET v = v || '!';
DELETE FROM tg WHERE id = 1;
SELECT * FROM tg;
SELECT * FROM tlog ORDER BY 1, 2, 3;
WITH d AS (DELETE FROM m1 WHERE id < 10 RETURNING *) INSERT INTO m2 SELECT * FROM d;
UPDATE m1 SET v = m2.v FROM m2 WHERE m1.id = m2.id AND m2.id BETWEEN 60 AND 70;
SELECT count(*), sum(v) FROM m1;
BEGIN;
DECLARE c CURSOR FOR SELECT * FROM m1 WHERE id > 140 ORDER BY id FOR UPDATE;
FETCH c;
UPDATE m1 SET v = -1 WHERE CURRENT OF c;
FETCH c;
DELETE FROM m1 WHERE CURRENT OF c;
COMMIT;
SELECT * FROM m1 WHERE id > 140 ORDER BY id LIMIT 3;
CREATE TABLE gen (id int GENERATED ALWAYS AS IDENTITY, a int, b int GENERATED ALWAYS AS (a * 2) STORED);
INSERT INTO gen (a) SELECT generate_series(1, 5);
UPDATE gen SET a = a + 1;
SELECT * FROM gen ORDER BY id;
CREATE TABLE ex (r int4range, EXCLUDE USING gist (r WITH &&));
INSERT INTO ex VALUES ('[1,5)'), ('[5,10)');
INSERT INTO ex VALUES ('[3,4)');
INSERT INTO ex VALUES ('[20,30)') ON CONFLICT DO NOTHING;
INSERT INTO ex VALUES ('[21,22)') ON CONFLICT DO NOTHING;
SELECT * FROM ex ORDER BY r;
CREATE TABLE nl (a int, b text);
INSERT INTO nl SELECT g, md5(g::text) FROM generate_series(1, 20000) g;
CREATE INDEX ON nl (a);
ANALYZE nl;
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET enable_indexscan = off;
SELECT count(*), sum(nl.a) FROM m1 JOIN nl ON nl.a = m1.id;
RESET enable_hashjoin;
RESET enable_mergejoin;
RESET enable_indexscan;
SELECT a.amname = current_setting('default_table_access_method') AS default_am
  FROM pg_class c JOIN pg_am a ON a.oid = c.relam WHERE c.relname = 'nl';
DROP TABLE m1, m2, tg, tlog, gen, ex, nl;

-- the layout
SET default_table_access_method = :am;
CREATE TABLE m1 (id int PRIMARY KEY, v int);
CREATE TABLE m2 (id int, v int);
INSERT INTO m1 SELECT g, g FROM generate_series(1, 100) g;
INSERT INTO m2 SELECT g, g * 10 FROM generate_series(50, 150) g;
MERGE INTO m1 USING m2 ON m1.id = m2.id
  WHEN MATCHED AND m2.v > 1000 THEN DELETE
  WHEN MATCHED THEN UPDATE SET v = m2.v
  WHEN NOT MATCHED THEN INSERT VALUES (m2.id, m2.v);
SELECT count(*), sum(v) FROM m1;
CREATE TABLE tg (id int PRIMARY KEY, v text);
CREATE TABLE tlog (op text, old text, new text);
CREATE TRIGGER b BEFORE UPDATE ON tg FOR EACH ROW EXECUTE FUNCTION nsm_tgf();
CREATE TRIGGER a AFTER INSERT OR UPDATE OR DELETE ON tg FOR EACH ROW EXECUTE FUNCTION nsm_tgf();
CREATE TRIGGER s AFTER UPDATE ON tg REFERENCING OLD TABLE AS o NEW TABLE AS n
  FOR EACH STATEMENT EXECUTE FUNCTION nsm_tgf();
INSERT INTO tg VALUES (1, 'a'), (2, 'b');
UPDATE tg SET v = v || '!';
DELETE FROM tg WHERE id = 1;
SELECT * FROM tg;
SELECT * FROM tlog ORDER BY 1, 2, 3;
WITH d AS (DELETE FROM m1 WHERE id < 10 RETURNING *) INSERT INTO m2 SELECT * FROM d;
UPDATE m1 SET v = m2.v FROM m2 WHERE m1.id = m2.id AND m2.id BETWEEN 60 AND 70;
SELECT count(*), sum(v) FROM m1;
BEGIN;
DECLARE c CURSOR FOR SELECT * FROM m1 WHERE id > 140 ORDER BY id FOR UPDATE;
FETCH c;
UPDATE m1 SET v = -1 WHERE CURRENT OF c;
FETCH c;
DELETE FROM m1 WHERE CURRENT OF c;
COMMIT;
SELECT * FROM m1 WHERE id > 140 ORDER BY id LIMIT 3;
CREATE TABLE gen (id int GENERATED ALWAYS AS IDENTITY, a int, b int GENERATED ALWAYS AS (a * 2) STORED);
INSERT INTO gen (a) SELECT generate_series(1, 5);
UPDATE gen SET a = a + 1;
SELECT * FROM gen ORDER BY id;
CREATE TABLE ex (r int4range, EXCLUDE USING gist (r WITH &&));
INSERT INTO ex VALUES ('[1,5)'), ('[5,10)');
INSERT INTO ex VALUES ('[3,4)');
INSERT INTO ex VALUES ('[20,30)') ON CONFLICT DO NOTHING;
INSERT INTO ex VALUES ('[21,22)') ON CONFLICT DO NOTHING;
SELECT * FROM ex ORDER BY r;
CREATE TABLE nl (a int, b text);
INSERT INTO nl SELECT g, md5(g::text) FROM generate_series(1, 20000) g;
CREATE INDEX ON nl (a);
ANALYZE nl;
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET enable_indexscan = off;
SELECT count(*), sum(nl.a) FROM m1 JOIN nl ON nl.a = m1.id;
RESET enable_hashjoin;
RESET enable_mergejoin;
RESET enable_indexscan;
SELECT a.amname = current_setting('default_table_access_method') AS default_am
  FROM pg_class c JOIN pg_am a ON a.oid = c.relam WHERE c.relname = 'nl';
DROP TABLE m1, m2, tg, tlog, gen, ex, nl;

RESET default_table_access_method;
DROP FUNCTION nsm_tgf();
