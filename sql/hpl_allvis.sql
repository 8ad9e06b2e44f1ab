-- test/sql/row_allvis.sql on quickstep_hpl, in a schema of its own.
\set am quickstep_hpl
CREATE SCHEMA hpl_allvis;
SET search_path = hpl_allvis, public;
\i test/sql/row_allvis.sql
RESET search_path;
SET client_min_messages = warning;
DROP SCHEMA hpl_allvis CASCADE;
RESET client_min_messages;
