-- TID range scans of column tables, forward and backward (scrollable
-- cursors), against a heap twin: delta rows, an open block, a sealed block
-- sorted by quickstep.seal() (a TID map: positions are not TID rows),
-- bulk-loaded blocks, deleted rows.  The heap twin h holds the same rows in
-- the column table's TID order, so a range bounded by the TIDs of the same
-- ids holds the same rows in the same order on both tables.
CREATE SCHEMA column_tidrange;
SET search_path = column_tidrange, public;
SET max_parallel_workers_per_gather = 0;
SET jit = off;	-- enable_seqscan = off below makes every plan "expensive"

CREATE TABLE c (id int NOT NULL, v int8, k text) USING quickstep_column
  WITH (quickstep.rows_per_block = 1000, quickstep.sort_key = 'v');
ALTER TABLE c SET (autovacuum_enabled = off);
CREATE INDEX c_id ON c (id);

-- block 1: merged into an open block, then sealed sorted on v
SET quickstep.column_delta_rows = 100000;
INSERT INTO c SELECT i, (i * 7919) % 1000, 'k' || i FROM generate_series(1, 600) i;
SELECT quickstep.merge('c') > 0 AS merged;
SELECT quickstep.seal('c') AS sealed;
-- block 2: a new open block
INSERT INTO c SELECT i, (i * 7919) % 1000, 'k' || i FROM generate_series(601, 900) i;
SELECT quickstep.merge('c') > 0 AS merged;
-- blocks 3 and 4: bulk loaded (kept in arrival order: the table has an index)
SET quickstep.column_delta_rows = 0;
INSERT INTO c SELECT i, (i * 7919) % 1000, 'k' || i FROM generate_series(901, 2400) i;
-- block 2 grows: its current version is written after blocks 3 and 4
SET quickstep.column_delta_rows = 100000;
INSERT INTO c SELECT i, (i * 7919) % 1000, 'k' || i FROM generate_series(2401, 2450) i;
SELECT quickstep.merge('c') > 0 AS merged;
-- delta rows
INSERT INTO c SELECT i, (i * 7919) % 1000, 'k' || i FROM generate_series(2451, 2550) i;
RESET quickstep.column_delta_rows;

SELECT block_id, state, rows, sorted FROM quickstep.blocks('c')
  WHERE column_name = 'v' ORDER BY block_id;
SELECT count(*) FILTER (WHERE ctid < '(2147483648,0)') AS delta_rows,
       count(*) FILTER (WHERE ctid >= '(2147483648,0)') AS main_rows FROM c;
-- the sealed block's TID rows are not in the order of its (sorted) positions
SELECT count(*) > 0 AS tidmap FROM quickstep.blocks('c')
  WHERE column_name = 'v' AND sorted AND state = 'sealed';

-- the heap twin, in c's TID order
CREATE TABLE h (LIKE c);
ALTER TABLE h SET (autovacuum_enabled = off);
INSERT INTO h SELECT * FROM c ORDER BY ctid;
-- bounds: the TIDs of chosen ids in each table
CREATE TABLE bound AS
  SELECT 'c'::text AS t, id, ctid AS tid FROM c
    WHERE id IN (1, 250, 600, 650, 1000, 1500, 1900, 2300, 2420, 2460, 2500, 2550)
  UNION ALL
  SELECT 'h', id, ctid FROM h
    WHERE id IN (1, 250, 600, 650, 1000, 1500, 1900, 2300, 2420, 2460, 2500, 2550);
-- deleted rows in every kind of block and in the delta
DELETE FROM c WHERE id % 11 = 0 OR id BETWEEN 1890 AND 1899;
DELETE FROM h WHERE id % 11 = 0 OR id BETWEEN 1890 AND 1899;

SET enable_seqscan = off;
SET enable_bitmapscan = off;
SET enable_indexscan = off;

-- the plan is a TID range scan that runs backward itself (no Material)
CREATE FUNCTION plan(q text) RETURNS SETOF text LANGUAGE plpgsql AS $f$
DECLARE l text;
BEGIN
  FOR l IN EXECUTE 'EXPLAIN (COSTS OFF) DECLARE p SCROLL CURSOR FOR ' || q LOOP
    RETURN NEXT l;
  END LOOP;
END $f$;
SELECT plan($$SELECT id FROM c WHERE ctid >= '(0,1)' AND ctid < '(4294967294,1)'$$);

-- run the fetches 'steps' on a scrollable cursor over the rows of {t}
-- whose TIDs lie in [lo, hi) (lo, hi: ids in bound; NULL: no bound on that
-- side); one line per fetch: the direction and the ids it returned
CREATE FUNCTION walk(t text, lo int, hi int, steps text[]) RETURNS text
LANGUAGE plpgsql AS $f$
DECLARE
  q text := format('SELECT id FROM %I WHERE ctid >= %L AND ctid < %L', t,
                   coalesce((SELECT tid FROM bound b WHERE b.t = walk.t AND b.id = lo),
                            '(0,0)'::tid),
                   coalesce((SELECT tid FROM bound b WHERE b.t = walk.t AND b.id = hi),
                            '(4294967295,0)'::tid));
  s text;
  r record;
  got text;
  res text := '';
BEGIN
  EXECUTE 'DECLARE w SCROLL CURSOR FOR ' || q;
  FOREACH s IN ARRAY steps LOOP
    got := '';
    FOR r IN EXECUTE 'FETCH ' || s || ' FROM w' LOOP
      got := got || ' ' || r.id;
    END LOOP;
    res := res || s || ':' || got || E'\n';
  END LOOP;
  EXECUTE 'CLOSE w';
  RETURN res;
END $f$;

-- the same walk on c and h; prints c's answers and whether h's are equal
CREATE FUNCTION twin(lo int, hi int, steps text[]) RETURNS TABLE (same boolean, answers text)
LANGUAGE sql AS $f$
  SELECT walk('c', lo, hi, steps) = walk('h', lo, hi, steps), walk('c', lo, hi, steps)
$f$;

BEGIN;
-- the whole table: every row forward, then every row backward
SELECT same, md5(answers) = md5(array_to_string(ARRAY(
         SELECT 'FORWARD ALL: ' || string_agg(id::text, ' ' ORDER BY ctid) FROM c), '')
         || E'\n' || 'BACKWARD ALL: ' || (SELECT string_agg(id::text, ' ' ORDER BY ctid DESC) FROM c)
         || E'\n') AS all_rows_in_tid_order
  FROM twin(NULL, NULL, '{FORWARD ALL, BACKWARD ALL}');
SELECT count(*) AS rows, sum(id) FROM c WHERE ctid >= '(0,0)';
-- direction changes at the delta/main boundary (delta: 2451..2550) and at
-- the ends
SELECT * FROM twin(NULL, NULL,
  '{NEXT, FORWARD 3, BACKWARD 2, PRIOR, PRIOR, NEXT, "RELATIVE 95", "FORWARD 3", "BACKWARD 3",
    "PRIOR", "BACKWARD 2", "FORWARD 2", "NEXT", LAST, PRIOR, "BACKWARD 2", "FORWARD 5",
    FIRST, PRIOR, NEXT, "ABSOLUTE 100", "ABSOLUTE 101", "ABSOLUTE -3", "ABSOLUTE 89",
    "RELATIVE 2", "BACKWARD 4"}');
-- direction changes in the middle of each kind of block and across blocks
SELECT * FROM twin(NULL, NULL,
  '{"ABSOLUTE 120", "FORWARD 3", "BACKWARD 5", "ABSOLUTE 400", "FORWARD 2", "BACKWARD 3",
    "ABSOLUTE 640", "FORWARD 3", "BACKWARD 4", "ABSOLUTE 900", "FORWARD 3", "BACKWARD 6",
    "ABSOLUTE 1700", "FORWARD 3", "BACKWARD 3", "ABSOLUTE 2200", "FORWARD 4", "BACKWARD 7",
    "ABSOLUTE 2290", "FORWARD 2", "BACKWARD 2", "ABSOLUTE -1", "BACKWARD 3"}');
-- ranges with bounds inside the delta, the sealed block, the open block and
-- the bulk-loaded blocks (to the row and across)
SELECT * FROM twin(2460, 2500, '{FORWARD 3, BACKWARD 2, LAST, BACKWARD 3, FORWARD 5, FIRST, PRIOR, NEXT}');
SELECT * FROM twin(2500, 250, '{FORWARD 3, "ABSOLUTE 90", "FORWARD 3", BACKWARD 6, LAST, FORWARD 2, BACKWARD 2}');
SELECT * FROM twin(250, 650, '{FORWARD 2, BACKWARD 1, LAST, "BACKWARD 2", "ABSOLUTE 200", "RELATIVE -3", "FORWARD 2"}');
SELECT * FROM twin(650, 1500, '{NEXT, PRIOR, PRIOR, NEXT, LAST, "BACKWARD 3", "ABSOLUTE 250", "FORWARD 3", "BACKWARD 5", FIRST}');
SELECT * FROM twin(1500, 1900, '{LAST, "BACKWARD 3", NEXT, NEXT, PRIOR, FIRST, PRIOR, NEXT, NEXT}');
SELECT * FROM twin(600, 2420, '{"ABSOLUTE 1", "ABSOLUTE -1", "PRIOR", "ABSOLUTE 300", "ABSOLUTE 301", "BACKWARD 2"}');
-- every range between two of the bounds (empty ones too), forward and backward
SELECT count(*) AS ranges, count(*) FILTER (WHERE same) AS same_as_heap,
       count(*) FILTER (WHERE answers ~ ': [0-9]') AS with_rows
  FROM (SELECT DISTINCT id FROM bound) lo, (SELECT DISTINCT id FROM bound) hi,
       LATERAL twin(lo.id, hi.id, '{FORWARD ALL, BACKWARD ALL, "ABSOLUTE 3", "BACKWARD 2", LAST, "FORWARD 1", PRIOR}');
-- an empty range and one below every main row
SELECT * FROM twin(2500, 2460, '{NEXT, PRIOR, LAST, FIRST}');
SELECT * FROM twin(2451, 2460, '{LAST, "BACKWARD ALL", "FORWARD ALL"}');
COMMIT;

-- a row updated and a row deleted while a cursor is open (its snapshot)
BEGIN;
DECLARE k SCROLL CURSOR FOR SELECT id FROM c
  WHERE ctid >= (SELECT tid FROM bound WHERE t = 'c' AND id = 1900)
    AND ctid < (SELECT tid FROM bound WHERE t = 'c' AND id = 2300);
FETCH 3 FROM k;
UPDATE c SET v = -1 WHERE id IN (1901, 1902);
DELETE FROM c WHERE id = 2298;
FETCH LAST FROM k;
FETCH BACKWARD 3 FROM k;
FETCH ABSOLUTE 1 FROM k;
FETCH FORWARD 2 FROM k;
ROLLBACK;

SELECT quickstep.check_table('c') > 0 AS checked;
DROP SCHEMA column_tidrange CASCADE;
