-- pgTAP: the SQL API of the csbtree index access method.
\set ON_ERROR_STOP 1
\set QUIET 1
\pset format unaligned
\pset tuples_only true
\pset pager off
BEGIN;
SELECT plan(22);

SELECT has_function('quickstep', 'csbtree_handler', ARRAY['internal'], 'quickstep.csbtree_handler(internal) exists');
SELECT function_returns('quickstep', 'csbtree_handler', ARRAY['internal'], 'index_am_handler', 'the handler returns index_am_handler');
SELECT has_function('quickstep', 'check_index', ARRAY['regclass'], 'quickstep.check_index(regclass) exists');
SELECT function_lang_is('quickstep', 'check_index', ARRAY['regclass'], 'c', 'check_index() is written in C');
SELECT ok(EXISTS (SELECT 1 FROM pg_am WHERE amname = 'csbtree' AND amtype = 'i'), 'access method csbtree exists');
SELECT is((SELECT count(*)::int FROM pg_opclass c JOIN pg_am a ON a.oid = c.opcmethod
            WHERE a.amname = 'csbtree' AND c.opcdefault), 10, 'ten default operator classes');
SELECT ok(EXISTS (SELECT 1 FROM pg_opclass c JOIN pg_am a ON a.oid = c.opcmethod
                   WHERE a.amname = 'csbtree' AND c.opcintype = t::regtype AND c.opcdefault),
          'a default csbtree operator class for ' || t)
  FROM unnest(ARRAY['int2', 'int4', 'int8', 'float4', 'float8', 'date', 'timestamp',
                    'timestamptz', 'uuid', 'text']) t;
SELECT ok(bool_and(amvalidate(c.oid)), 'every csbtree operator class validates')
  FROM pg_opclass c JOIN pg_am a ON a.oid = c.opcmethod WHERE a.amname = 'csbtree';

CREATE TABLE tap_t (k int, v varchar(10));
INSERT INTO tap_t SELECT i, 'v' || i FROM generate_series(1, 2000) i;
CREATE INDEX tap_k ON tap_t USING csbtree (k);
CREATE INDEX tap_v ON tap_t USING csbtree (v);
SELECT results_eq($$SELECT levels, pages, leaf_tuples FROM quickstep.check_index('tap_k')$$,
                  $$VALUES (2, 4::bigint, 2000::bigint)$$, 'check_index() summarizes a clean index');
SELECT is((SELECT leaf_tuples FROM quickstep.check_index('tap_v')), 2000::bigint, 'varchar columns use the text class');
SELECT throws_ok($$CREATE INDEX ON tap_t USING csbtree ((k::text::jsonb))$$, '42704', NULL,
                 'a type without an operator class is refused');
CREATE UNIQUE INDEX tap_u ON tap_t USING csbtree (k);
SELECT throws_ok($$INSERT INTO tap_t VALUES (7, 'dup')$$, '23505', NULL,
                 'a unique csbtree index refuses a duplicate with unique_violation');
SELECT throws_ok($$SELECT quickstep.check_index('tap_t')$$, '42809', NULL,
                 'check_index() refuses a table');

SELECT * FROM finish();
ROLLBACK;
