-- test/sql/row_nulls.sql on quickstep_pax, in a schema of its own.
\set am quickstep_pax
CREATE SCHEMA pax_nulls;
SET search_path = pax_nulls, public;
\i test/sql/row_nulls.sql
RESET search_path;
SET client_min_messages = warning;
DROP SCHEMA pax_nulls CASCADE;
RESET client_min_messages;
