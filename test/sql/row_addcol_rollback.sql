-- Table access method :am (set by the caller, sql/<am>_addcol_rollback.sql;
-- heap too).  Audit 12, D8: a rolled-back ADD COLUMN whose transaction
-- wrote rows leaves PAX/HPL pages (and column tables' delta pages) whose
-- directory describes the aborted attribute; a later ADD COLUMN of another
-- type reuses the attribute number.  Rows with the new attribute must
-- never be stored in the stale attribute's fields, no reader may decode a
-- stale value with the table's descriptor, and check_table must accept the
-- pages (values of aborted records are not corruption).  Output is heap's.

-- check_table where the table has one (CASE: never called on heap); a
-- merge of a column table's delta into column blocks
CREATE FUNCTION merged(am text, rel text) RETURNS bool
LANGUAGE plpgsql AS $$
BEGIN
  IF am = 'quickstep_column' THEN
    EXECUTE format('SELECT quickstep.merge(%L)', rel);
  END IF;
  RETURN true;
END $$;

-- the reproducer: int, then text in the reused attribute number
CREATE TABLE tc3 (id int) USING :am;
BEGIN;
ALTER TABLE tc3 ADD COLUMN w int;
INSERT INTO tc3 VALUES (1, 1);
ROLLBACK;
SELECT CASE WHEN :'am' = 'heap' THEN true
  ELSE quickstep.check_table('tc3') IS NOT NULL END AS checked;
ALTER TABLE tc3 ADD COLUMN w2 text;
INSERT INTO tc3 VALUES (2, 'hello world');
SELECT id FROM tc3;
SELECT id, length(w2), w2 FROM tc3;
SELECT CASE WHEN :'am' = 'heap' THEN true
  ELSE quickstep.check_table('tc3') IS NOT NULL END AS checked;

-- int2, then int4: the value must not be read as 16 bits
CREATE TABLE tm (id int) USING :am;
BEGIN;
ALTER TABLE tm ADD COLUMN w int2;
INSERT INTO tm VALUES (1, 7);
ROLLBACK;
ALTER TABLE tm ADD COLUMN w2 int4;
INSERT INTO tm VALUES (2, 123456), (3, -123456), (4, NULL);
SELECT * FROM tm ORDER BY id;
SELECT sum(w2), count(w2) FROM tm WHERE w2 > 100000;
SELECT CASE WHEN :'am' = 'heap' THEN true
  ELSE quickstep.check_table('tm') IS NOT NULL END AS checked;

-- text, then int4 (and a value in the aborted rows that is no valid int)
CREATE TABLE tt (id int) USING :am;
BEGIN;
ALTER TABLE tt ADD COLUMN w text;
INSERT INTO tt SELECT g, repeat('x', g) FROM generate_series(1, 20) g;
ROLLBACK;
SELECT CASE WHEN :'am' = 'heap' THEN true
  ELSE quickstep.check_table('tt') IS NOT NULL END AS checked;
ALTER TABLE tt ADD COLUMN w2 int4;
INSERT INTO tt SELECT g, g * 1000 FROM generate_series(21, 30) g;
SELECT * FROM tt ORDER BY id;
SELECT count(*), sum(w2) FROM tt WHERE w2 BETWEEN 22000 AND 25000;
SELECT CASE WHEN :'am' = 'heap' THEN true
  ELSE quickstep.check_table('tt') IS NOT NULL END AS checked;

-- int4, then float4 and int8 then float8: the same layout, another type
CREATE TABLE tf (id int) USING :am;
BEGIN;
ALTER TABLE tf ADD COLUMN w int4, ADD COLUMN x int8;
INSERT INTO tf VALUES (1, 1065353216, 4607182418800017408);
ROLLBACK;
ALTER TABLE tf ADD COLUMN w2 float4, ADD COLUMN x2 float8;
INSERT INTO tf VALUES (2, 2.5, 0.25);
SELECT * FROM tf ORDER BY id;
SELECT CASE WHEN :'am' = 'heap' THEN true
  ELSE quickstep.check_table('tf') IS NOT NULL END AS checked;

-- committed rows before the aborted ALTER and after it, on the same pages;
-- VACUUM in between; a default (a missing value for the old rows); HOT
-- updates of old rows after the new ADD COLUMN; an index on the column
CREATE TABLE tp (id int PRIMARY KEY, v text) USING :am;
INSERT INTO tp SELECT g, 'before ' || g FROM generate_series(1, 100) g;
BEGIN;
ALTER TABLE tp ADD COLUMN w int8;
INSERT INTO tp SELECT g, 'aborted ' || g, g FROM generate_series(101, 300) g;
UPDATE tp SET w = id WHERE id <= 20;
ROLLBACK;
SELECT CASE WHEN :'am' = 'heap' THEN true
  ELSE quickstep.check_table('tp') IS NOT NULL END AS checked;
INSERT INTO tp SELECT g, 'after ' || g FROM generate_series(301, 400) g;
SELECT CASE WHEN :'am' = 'heap' THEN true
  ELSE quickstep.check_table('tp') IS NOT NULL END AS checked;
VACUUM tp;
SELECT CASE WHEN :'am' = 'heap' THEN true
  ELSE quickstep.check_table('tp') IS NOT NULL END AS checked;
INSERT INTO tp SELECT g, 'after vacuum ' || g FROM generate_series(401, 450) g;
ALTER TABLE tp ADD COLUMN w2 text DEFAULT 'dflt';
INSERT INTO tp SELECT g, 'new ' || g, 'w2 ' || g FROM generate_series(451, 500) g;
SELECT count(*), count(w2), count(*) FILTER (WHERE w2 = 'dflt') FROM tp;
SELECT * FROM tp WHERE id IN (1, 100, 301, 400, 401, 450, 451, 500) ORDER BY id;
SELECT CASE WHEN :'am' = 'heap' THEN true
  ELSE quickstep.check_table('tp') IS NOT NULL END AS checked;
-- updates of old rows: the new version has the new attribute
UPDATE tp SET v = v || ' u1' WHERE id % 10 = 0;
UPDATE tp SET w2 = 'set ' || id WHERE id % 7 = 0;
UPDATE tp SET w2 = NULL WHERE id % 11 = 0;
SELECT CASE WHEN :'am' = 'heap' THEN true
  ELSE quickstep.check_table('tp') IS NOT NULL END AS checked;
SELECT count(*), count(w2), count(*) FILTER (WHERE w2 = 'dflt'),
  count(*) FILTER (WHERE v LIKE '% u1'), sum(length(w2)) FROM tp;
SELECT * FROM tp WHERE id IN (7, 10, 11, 70, 77, 110, 301, 308, 330, 440, 490) ORDER BY id;
CREATE INDEX tp_w2 ON tp (w2);
SET enable_seqscan = off;
SELECT id, w2 FROM tp WHERE w2 = 'set 308';
RESET enable_seqscan;
VACUUM tp;
SELECT merged(:'am', 'tp');
SELECT CASE WHEN :'am' = 'heap' THEN true
  ELSE quickstep.check_table('tp') IS NOT NULL END AS checked;
SELECT count(*), count(w2), sum(id) FROM tp;
SELECT CASE WHEN :'am' = 'heap' THEN true
  ELSE quickstep.check_table('tp') IS NOT NULL END AS checked;

-- several rolled-back ADD COLUMNs in a row, VACUUM between some of them
CREATE TABLE ts (id int, v int) USING :am;
INSERT INTO ts SELECT g, g FROM generate_series(1, 50) g;
BEGIN;
ALTER TABLE ts ADD COLUMN w int2;
INSERT INTO ts SELECT g, g, 1 FROM generate_series(51, 60) g;
ROLLBACK;
BEGIN;
ALTER TABLE ts ADD COLUMN w text, ADD COLUMN x int8;
INSERT INTO ts SELECT g, g, 'ab' || g, g FROM generate_series(61, 70) g;
ROLLBACK;
VACUUM ts;
SELECT CASE WHEN :'am' = 'heap' THEN true
  ELSE quickstep.check_table('ts') IS NOT NULL END AS checked;
BEGIN;
ALTER TABLE ts ADD COLUMN w numeric;
INSERT INTO ts SELECT g, g, g / 3.0 FROM generate_series(71, 80) g;
ROLLBACK;
SELECT CASE WHEN :'am' = 'heap' THEN true
  ELSE quickstep.check_table('ts') IS NOT NULL END AS checked;
-- a savepoint rolled back, then another type in the same transaction
BEGIN;
SAVEPOINT s1;
ALTER TABLE ts ADD COLUMN w bool;
INSERT INTO ts SELECT g, g, true FROM generate_series(81, 90) g;
ROLLBACK TO SAVEPOINT s1;
ALTER TABLE ts ADD COLUMN w2 text, ADD COLUMN x2 int2;
INSERT INTO ts SELECT g, g, 'w2 ' || g, g FROM generate_series(91, 100) g;
COMMIT;
SELECT * FROM ts WHERE id > 45 ORDER BY id;
SELECT count(*), count(w2), count(x2), sum(x2) FROM ts;
SELECT CASE WHEN :'am' = 'heap' THEN true
  ELSE quickstep.check_table('ts') IS NOT NULL END AS checked;
UPDATE ts SET x2 = -id WHERE id <= 5;
SELECT * FROM ts WHERE id <= 5 ORDER BY id;
VACUUM FULL ts;
SELECT * FROM ts WHERE id <= 5 OR id >= 99 ORDER BY id;
SELECT CASE WHEN :'am' = 'heap' THEN true
  ELSE quickstep.check_table('ts') IS NOT NULL END AS checked;
VACUUM ts;
SELECT merged(:'am', 'ts');
SELECT CASE WHEN :'am' = 'heap' THEN true
  ELSE quickstep.check_table('ts') IS NOT NULL END AS checked;
SELECT count(*), count(w2), sum(x2) FROM ts;

-- a wide table (HPL stores whole formed rows past 64 fields)
CREATE FUNCTION mkwide(am text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format('CREATE TABLE tw (%s) USING %s',
                 (SELECT string_agg('c' || g || ' int', ', ')
                    FROM generate_series(1, 70) g), am);
END $$;
SELECT mkwide(:'am');
BEGIN;
ALTER TABLE tw ADD COLUMN w int;
INSERT INTO tw (c1, w) VALUES (1, 1);
ROLLBACK;
ALTER TABLE tw ADD COLUMN w2 text;
INSERT INTO tw (c1, c70, w2) VALUES (2, 70, 'hello world');
SELECT c1, c70, length(w2), w2 FROM tw;
SELECT CASE WHEN :'am' = 'heap' THEN true
  ELSE quickstep.check_table('tw') IS NOT NULL END AS checked;

-- a dropped column before the rolled-back one
CREATE TABLE td (id int, a text, b int) USING :am;
INSERT INTO td VALUES (1, 'a', 1);
ALTER TABLE td DROP COLUMN a;
BEGIN;
ALTER TABLE td ADD COLUMN w int8;
INSERT INTO td VALUES (2, 2, 2);
ROLLBACK;
ALTER TABLE td ADD COLUMN w2 text;
INSERT INTO td VALUES (3, 3, 'three');
UPDATE td SET b = b + 10;
SELECT * FROM td ORDER BY id;
SELECT CASE WHEN :'am' = 'heap' THEN true
  ELSE quickstep.check_table('td') IS NOT NULL END AS checked;

-- pages emptied of a rolled-back ADD COLUMN's rows take the table's rows
-- again (VACUUM gives them back; a page describing the aborted attribute
-- is laid out anew): eight rounds, the aborted attribute's length,
-- alignment or by-value changing each round (none wider than 8 bytes, so
-- that a layout's rows per page barely change), a committed row after each
-- round keeping VACUUM from truncating the pages, stay within twice what
-- the first two rounds took (PAX grew by a round's pages each round)
CREATE TABLE tg (id int) USING :am;
CREATE TEMP TABLE tg_size (r int, bytes bigint);
INSERT INTO tg VALUES (0);
SELECT stmt FROM generate_series(1, 8) r,
  LATERAL (VALUES (1, format($f$DO $d$ BEGIN
      ALTER TABLE tg ADD COLUMN w %s;
      INSERT INTO tg SELECT g, NULL FROM generate_series(1, 2000) g;
      RAISE EXCEPTION 'undo';
    EXCEPTION WHEN raise_exception THEN NULL;
    END $d$$f$, (ARRAY['text', 'int4', 'int8', 'int2', 'bool', 'macaddr', 'tid', 'float8[]'])[r])),
    (2, format('INSERT INTO tg VALUES (%s)', -r)),
    (3, 'VACUUM tg'),
    (4, format($$INSERT INTO tg_size VALUES (%s, pg_relation_size('tg'))$$, r))) v(k, stmt)
  ORDER BY r, k \gexec
SELECT max(bytes) FILTER (WHERE r > 2) <= 2 * max(bytes) FILTER (WHERE r = 2) AS space_reused
  FROM tg_size;
SELECT count(*), sum(id) FROM tg;
SELECT CASE WHEN :'am' = 'heap' THEN true
  ELSE quickstep.check_table('tg') IS NOT NULL END AS checked;
