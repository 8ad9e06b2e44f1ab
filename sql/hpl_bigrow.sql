-- test/sql/row_bigrow.sql on quickstep_hpl, in a schema of its own.
\set am quickstep_hpl
CREATE SCHEMA hpl_bigrow;
SET search_path = hpl_bigrow, public;
\i test/sql/row_bigrow.sql
RESET search_path;
SET client_min_messages = warning;
DROP SCHEMA hpl_bigrow CASCADE;
RESET client_min_messages;
