-- test/sql/row_hot.sql on quickstep_hpl, in a schema of its own.
\set am quickstep_hpl
CREATE SCHEMA hpl_hot;
SET search_path = hpl_hot, public;
\i test/sql/row_hot.sql
RESET search_path;
SET client_min_messages = warning;
DROP SCHEMA hpl_hot CASCADE;
RESET client_min_messages;
