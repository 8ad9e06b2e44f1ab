-- test/sql/row_features.sql on quickstep_hpl, in a schema of its own.
-- Same output as expected/nsm_features.out.
\set am quickstep_hpl
CREATE SCHEMA hpl_features;
SET search_path = hpl_features, public;
\i test/sql/row_features.sql
RESET search_path;
SET client_min_messages = warning;
DROP SCHEMA hpl_features CASCADE;
RESET client_min_messages;
