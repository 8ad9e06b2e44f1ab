-- test/sql/row_bigrow.sql on quickstep_nsm, in a schema of its own.
\set am quickstep_nsm
CREATE SCHEMA nsm_bigrow;
SET search_path = nsm_bigrow, public;
\i test/sql/row_bigrow.sql
RESET search_path;
SET client_min_messages = warning;
DROP SCHEMA nsm_bigrow CASCADE;
RESET client_min_messages;
