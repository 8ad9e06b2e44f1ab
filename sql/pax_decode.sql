-- test/sql/row_decode.sql on quickstep_pax, in a schema of its own.
\set am quickstep_pax
CREATE SCHEMA pax_decode;
SET search_path = pax_decode, public;
\i test/sql/row_decode.sql
RESET search_path;
SET client_min_messages = warning;
DROP SCHEMA pax_decode CASCADE;
RESET client_min_messages;
