-- test/sql/row_hotpaths.sql on quickstep_pax, in a schema of its own.
\set am quickstep_pax
CREATE SCHEMA pax_hotpaths;
SET search_path = pax_hotpaths, public;
\i test/sql/row_hotpaths.sql
RESET search_path;
SET client_min_messages = warning;
DROP SCHEMA pax_hotpaths CASCADE;
RESET client_min_messages;
