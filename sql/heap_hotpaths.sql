-- test/sql/row_hotpaths.sql on heap, in a schema of its own.
\set am heap
CREATE SCHEMA heap_hotpaths;
SET search_path = heap_hotpaths, public;
\i test/sql/row_hotpaths.sql
RESET search_path;
SET client_min_messages = warning;
DROP SCHEMA heap_hotpaths CASCADE;
RESET client_min_messages;
