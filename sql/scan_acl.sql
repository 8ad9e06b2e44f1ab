-- A pushed qual's operator function needs EXECUTE, as for heap: the scan
-- that evaluates it in storage (QuickstepScan, its aggregate pushdown)
-- checks it as ExecInitFunc does (review of oltp18, finding 1).
CREATE FUNCTION acl_lt(int, int) RETURNS bool AS 'int4lt' LANGUAGE internal STRICT IMMUTABLE;
CREATE OPERATOR <<< (LEFTARG = int, RIGHTARG = int, FUNCTION = acl_lt);
REVOKE EXECUTE ON FUNCTION acl_lt(int, int) FROM PUBLIC;
CREATE TABLE acl_heap (a int) USING heap;
CREATE TABLE acl_nsm (a int) USING quickstep_nsm;
CREATE TABLE acl_col (a int) USING quickstep_column;
INSERT INTO acl_heap SELECT g FROM generate_series(1, 2000) g;
INSERT INTO acl_nsm SELECT g FROM generate_series(1, 2000) g;
INSERT INTO acl_col SELECT g FROM generate_series(1, 2000) g;
VACUUM ANALYZE acl_heap, acl_nsm, acl_col;
CREATE ROLE regress_qs_acl;
GRANT SELECT ON acl_heap, acl_nsm, acl_col TO regress_qs_acl;
-- the owner may run it: the same rows everywhere
SELECT count(*) FROM acl_heap WHERE a <<< 3;
SELECT count(*) FROM acl_nsm WHERE a <<< 3;
SELECT count(*) FROM acl_col WHERE a <<< 3;
-- pushed into storage (a Storage Filter, aggregates pushed)
EXPLAIN (COSTS OFF) SELECT a FROM acl_nsm WHERE a <<< 3;
EXPLAIN (COSTS OFF) SELECT count(*) FROM acl_col WHERE a <<< 3;
SET ROLE regress_qs_acl;
-- refused as heap refuses it (EXPLAIN too, as heap's)
EXPLAIN (COSTS OFF) SELECT a FROM acl_nsm WHERE a <<< 3;
SELECT a FROM acl_heap WHERE a <<< 3;
SELECT a FROM acl_nsm WHERE a <<< 3;
SELECT count(*) FROM acl_col WHERE a <<< 3;
SELECT a FROM acl_col WHERE a <<< 3;
RESET ROLE;
GRANT EXECUTE ON FUNCTION acl_lt(int, int) TO regress_qs_acl;
SET ROLE regress_qs_acl;
SELECT a FROM acl_nsm WHERE a <<< 3 ORDER BY a;
SELECT count(*) FROM acl_col WHERE a <<< 3;
RESET ROLE;
DROP TABLE acl_heap, acl_nsm, acl_col;
DROP OPERATOR <<< (int, int);
DROP FUNCTION acl_lt(int, int);
DROP ROLE regress_qs_acl;
