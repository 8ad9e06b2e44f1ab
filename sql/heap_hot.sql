-- test/sql/row_hot.sql on heap, in a schema of its own.
\set am heap
CREATE SCHEMA heap_hot;
SET search_path = heap_hot, public;
\i test/sql/row_hot.sql
RESET search_path;
SET client_min_messages = warning;
DROP SCHEMA heap_hot CASCADE;
RESET client_min_messages;
