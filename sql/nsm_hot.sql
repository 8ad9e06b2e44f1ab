-- test/sql/row_hot.sql on quickstep_nsm, in a schema of its own.
\set am quickstep_nsm
CREATE SCHEMA nsm_hot;
SET search_path = nsm_hot, public;
\i test/sql/row_hot.sql
RESET search_path;
SET client_min_messages = warning;
DROP SCHEMA nsm_hot CASCADE;
RESET client_min_messages;
