-- test/sql/row_dml.sql on quickstep_nsm, in a schema of its own.
\set am quickstep_nsm
CREATE SCHEMA nsm_dml;
SET search_path = nsm_dml, public;
\i test/sql/row_dml.sql
RESET search_path;
SET client_min_messages = warning;
DROP SCHEMA nsm_dml CASCADE;
RESET client_min_messages;
