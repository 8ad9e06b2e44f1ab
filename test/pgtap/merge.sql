-- pgTAP: the SQL API of the merge (quickstep.merge, src/merge).  Not one
-- transaction: a merge moves only rows committed before it.
\set ON_ERROR_STOP 1
\set QUIET 1
\pset format unaligned
\pset tuples_only true
\pset pager off
SELECT plan(25);

SELECT has_function('quickstep', 'merge', ARRAY['regclass'], 'quickstep.merge(regclass) exists');
SELECT function_returns('quickstep', 'merge', ARRAY['regclass'], 'bigint',
                        'it returns the number of rows moved');
SELECT volatility_is('quickstep', 'merge', ARRAY['regclass'], 'volatile', 'it is volatile');

CREATE TABLE pm_col (a int PRIMARY KEY, b text) USING quickstep_column;
CREATE TABLE pm_heap (a int);

BEGIN;
INSERT INTO pm_col SELECT g, 'x' || g FROM generate_series(1, 10) g;
SELECT is(quickstep.merge('pm_col'), 0::bigint,
          'rows of the running transaction are not visible to every snapshot: they stay');
COMMIT;
SELECT throws_ok($$SELECT quickstep.merge('pm_heap')$$, '42809', NULL,
                 'a table that is not a column table is refused (wrong_object_type)');
SELECT throws_ok($$SELECT quickstep.merge(0)$$, NULL, NULL, 'an unknown relation is an error');
SELECT is(quickstep.merge(NULL), NULL, 'STRICT: NULL in, NULL out');

CREATE FUNCTION pg_temp.merge_as(r text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE format('SET LOCAL ROLE %I', r);
	PERFORM quickstep.merge('pm_col');
	RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
	RETURN SQLSTATE;		-- the role is reset with the subtransaction
END $$;
BEGIN;
SELECT is(pg_temp.merge_as('pg_monitor'), '42501',
          'only the owner may merge (insufficient_privilege)');
COMMIT;		-- not ROLLBACK: pgTAP keeps its results in this session's tables

BEGIN ISOLATION LEVEL SERIALIZABLE;
SELECT throws_ok($$SELECT quickstep.merge('pm_col')$$, '0A000', NULL,
                 'a SERIALIZABLE transaction may not merge (feature_not_supported)');
COMMIT;

SELECT is(quickstep.merge('pm_col'), 10::bigint, 'committed rows that every snapshot sees move');
SELECT is((SELECT main_rows FROM quickstep.column_stats WHERE relid = 'pm_col'::regclass),
          10::bigint, 'they are main rows now');
SELECT is((SELECT delta_rows FROM quickstep.column_stats WHERE relid = 'pm_col'::regclass),
          0::bigint, 'and none is left in the delta');
SELECT is((SELECT count(*) FROM pm_col WHERE a BETWEEN 1 AND 10), 10::bigint,
          'every row is seen once');
SELECT ok(quickstep.check_table('pm_col') >= 10, 'check_table walks the marks');

-- quickstep.seal (src/merge/seal.c): the rules of quickstep.merge
SELECT has_function('quickstep', 'seal', ARRAY['regclass'], 'quickstep.seal(regclass) exists');
SELECT function_returns('quickstep', 'seal', ARRAY['regclass'], 'integer',
                        'it returns the number of blocks sealed or sorted');
SELECT volatility_is('quickstep', 'seal', ARRAY['regclass'], 'volatile', 'it is volatile');
SELECT throws_ok($$SELECT quickstep.seal('pm_heap')$$, '42809', NULL,
                 'seal: a table that is not a column table is refused (wrong_object_type)');
SELECT is(quickstep.seal(NULL), NULL, 'seal: STRICT');
CREATE FUNCTION pg_temp.seal_as(r text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE format('SET LOCAL ROLE %I', r);
	PERFORM quickstep.seal('pm_col');
	RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
	RETURN SQLSTATE;
END $$;
BEGIN;
SELECT is(pg_temp.seal_as('pg_monitor'), '42501', 'only the owner may seal');
COMMIT;
BEGIN ISOLATION LEVEL SERIALIZABLE;
SELECT throws_ok($$SELECT quickstep.seal('pm_col')$$, '0A000', NULL,
                 'a SERIALIZABLE transaction may not seal (feature_not_supported)');
COMMIT;
SELECT is((SELECT state FROM quickstep.blocks('pm_col') WHERE column_name = 'a'), 'open',
          'the merge left an open block');
SELECT is(quickstep.seal('pm_col'), 1, 'seal seals it');
SELECT is((SELECT state FROM quickstep.blocks('pm_col') WHERE column_name = 'a'), 'sealed',
          'it is sealed');
SELECT is(quickstep.seal('pm_col'), 0, 'and nothing is left to seal');

SELECT * FROM finish();
DROP TABLE pm_col, pm_heap;
