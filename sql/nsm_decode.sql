-- test/sql/row_decode.sql on quickstep_nsm, in a schema of its own.
\set am quickstep_nsm
CREATE SCHEMA nsm_decode;
SET search_path = nsm_decode, public;
\i test/sql/row_decode.sql
RESET search_path;
SET client_min_messages = warning;
DROP SCHEMA nsm_decode CASCADE;
RESET client_min_messages;
