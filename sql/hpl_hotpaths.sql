-- test/sql/row_hotpaths.sql on quickstep_hpl, in a schema of its own.
\set am quickstep_hpl
CREATE SCHEMA hpl_hotpaths;
SET search_path = hpl_hotpaths, public;
\i test/sql/row_hotpaths.sql
RESET search_path;
SET client_min_messages = warning;
DROP SCHEMA hpl_hotpaths CASCADE;
RESET client_min_messages;
