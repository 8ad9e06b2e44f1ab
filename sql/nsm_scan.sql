-- test/sql/row_scan.sql on quickstep_nsm, in a schema of its own.
\set am quickstep_nsm
CREATE SCHEMA nsm_scan;
SET search_path = nsm_scan, public;
\i test/sql/row_scan.sql
RESET search_path;
SET client_min_messages = warning;
DROP SCHEMA nsm_scan CASCADE;
RESET client_min_messages;
