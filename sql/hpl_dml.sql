-- test/sql/row_dml.sql on quickstep_hpl, in a schema of its own.
\set am quickstep_hpl
CREATE SCHEMA hpl_dml;
SET search_path = hpl_dml, public;
\i test/sql/row_dml.sql
RESET search_path;
SET client_min_messages = warning;
DROP SCHEMA hpl_dml CASCADE;
RESET client_min_messages;
