-- test/sql/row_nulls.sql on quickstep_hpl, in a schema of its own.
\set am quickstep_hpl
CREATE SCHEMA hpl_nulls;
SET search_path = hpl_nulls, public;
\i test/sql/row_nulls.sql
RESET search_path;
SET client_min_messages = warning;
DROP SCHEMA hpl_nulls CASCADE;
RESET client_min_messages;
