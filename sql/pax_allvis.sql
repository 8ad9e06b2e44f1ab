-- test/sql/row_allvis.sql on quickstep_pax, in a schema of its own.
\set am quickstep_pax
CREATE SCHEMA pax_allvis;
SET search_path = pax_allvis, public;
\i test/sql/row_allvis.sql
RESET search_path;
SET client_min_messages = warning;
DROP SCHEMA pax_allvis CASCADE;
RESET client_min_messages;
