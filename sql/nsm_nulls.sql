-- test/sql/row_nulls.sql on quickstep_nsm, in a schema of its own.
\set am quickstep_nsm
CREATE SCHEMA nsm_nulls;
SET search_path = nsm_nulls, public;
\i test/sql/row_nulls.sql
RESET search_path;
SET client_min_messages = warning;
DROP SCHEMA nsm_nulls CASCADE;
RESET client_min_messages;
