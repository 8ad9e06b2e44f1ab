-- test/sql/row_features.sql on quickstep_nsm, in a schema of its own.
\set am quickstep_nsm
CREATE SCHEMA nsm_features;
SET search_path = nsm_features, public;
\i test/sql/row_features.sql
RESET search_path;
SET client_min_messages = warning;
DROP SCHEMA nsm_features CASCADE;
RESET client_min_messages;
