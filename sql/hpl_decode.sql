-- test/sql/row_decode.sql on quickstep_hpl, in a schema of its own.
\set am quickstep_hpl
CREATE SCHEMA hpl_decode;
SET search_path = hpl_decode, public;
\i test/sql/row_decode.sql
RESET search_path;
SET client_min_messages = warning;
DROP SCHEMA hpl_decode CASCADE;
RESET client_min_messages;
