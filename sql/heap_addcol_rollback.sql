-- test/sql/row_addcol_rollback.sql on heap, in a schema of its own.
\set am heap
CREATE SCHEMA heap_addcol_rollback;
SET search_path = heap_addcol_rollback, public;
\i test/sql/row_addcol_rollback.sql
RESET search_path;
SET client_min_messages = warning;
DROP SCHEMA heap_addcol_rollback CASCADE;
RESET client_min_messages;
