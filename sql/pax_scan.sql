-- test/sql/row_scan.sql on quickstep_pax, in a schema of its own.
-- Differs from expected/nsm_scan.out only physically: TIDs (records per
-- page differ, so ctid comparisons with heap, TID scans and TABLESAMPLE pick
-- other rows).
\set am quickstep_pax
CREATE SCHEMA pax_scan;
SET search_path = pax_scan, public;
\i test/sql/row_scan.sql
RESET search_path;
SET client_min_messages = warning;
DROP SCHEMA pax_scan CASCADE;
RESET client_min_messages;
