-- test/sql/row_hotpaths.sql on quickstep_nsm, in a schema of its own.
\set am quickstep_nsm
CREATE SCHEMA nsm_hotpaths;
SET search_path = nsm_hotpaths, public;
\i test/sql/row_hotpaths.sql
RESET search_path;
SET client_min_messages = warning;
DROP SCHEMA nsm_hotpaths CASCADE;
RESET client_min_messages;
