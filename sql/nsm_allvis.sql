-- test/sql/row_allvis.sql on quickstep_nsm, in a schema of its own.
\set am quickstep_nsm
CREATE SCHEMA nsm_allvis;
SET search_path = nsm_allvis, public;
\i test/sql/row_allvis.sql
RESET search_path;
SET client_min_messages = warning;
DROP SCHEMA nsm_allvis CASCADE;
RESET client_min_messages;
