-- test/sql/row_scan.sql on quickstep_hpl, in a schema of its own.
-- Differs from expected/nsm_scan.out only physically: HPL holds a different
-- number of records per page than heap, so TIDs differ (tid_diffs,
-- same_last_tid, the TID and TID range queries, TABLESAMPLE SYSTEM, which
-- samples pages).
\set am quickstep_hpl
CREATE SCHEMA hpl_scan;
SET search_path = hpl_scan, public;
\i test/sql/row_scan.sql
RESET search_path;
SET client_min_messages = warning;
DROP SCHEMA hpl_scan CASCADE;
RESET client_min_messages;
