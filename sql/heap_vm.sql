-- test/sql/row_vm.sql on heap, in a schema of its own.
\set am heap
CREATE SCHEMA heap_vm;
SET search_path = heap_vm, public;
\i test/sql/row_vm.sql
RESET search_path;
SET client_min_messages = warning;
DROP SCHEMA heap_vm CASCADE;
RESET client_min_messages;
