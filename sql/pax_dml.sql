-- test/sql/row_dml.sql on quickstep_pax, in a schema of its own.
\set am quickstep_pax
CREATE SCHEMA pax_dml;
SET search_path = pax_dml, public;
\i test/sql/row_dml.sql
RESET search_path;
SET client_min_messages = warning;
DROP SCHEMA pax_dml CASCADE;
RESET client_min_messages;
