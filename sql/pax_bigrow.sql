-- test/sql/row_bigrow.sql on quickstep_pax, in a schema of its own.
\set am quickstep_pax
CREATE SCHEMA pax_bigrow;
SET search_path = pax_bigrow, public;
\i test/sql/row_bigrow.sql
RESET search_path;
SET client_min_messages = warning;
DROP SCHEMA pax_bigrow CASCADE;
RESET client_min_messages;
