-- test/sql/row_vm.sql on quickstep_pax, in a schema of its own.
\set am quickstep_pax
CREATE SCHEMA pax_vm;
SET search_path = pax_vm, public;
\i test/sql/row_vm.sql
RESET search_path;
SET client_min_messages = warning;
DROP SCHEMA pax_vm CASCADE;
RESET client_min_messages;
