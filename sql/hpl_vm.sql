-- test/sql/row_vm.sql on quickstep_hpl, in a schema of its own.
\set am quickstep_hpl
CREATE SCHEMA hpl_vm;
SET search_path = hpl_vm, public;
\i test/sql/row_vm.sql
RESET search_path;
SET client_min_messages = warning;
DROP SCHEMA hpl_vm CASCADE;
RESET client_min_messages;
