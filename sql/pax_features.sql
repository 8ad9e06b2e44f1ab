-- test/sql/row_features.sql on quickstep_pax, in a schema of its own.
-- Same output as expected/nsm_features.out.
\set am quickstep_pax
CREATE SCHEMA pax_features;
SET search_path = pax_features, public;
\i test/sql/row_features.sql
RESET search_path;
SET client_min_messages = warning;
DROP SCHEMA pax_features CASCADE;
RESET client_min_messages;
