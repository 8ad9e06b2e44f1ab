-- test/sql/row_vm.sql on quickstep_nsm, in a schema of its own.
\set am quickstep_nsm
CREATE SCHEMA nsm_vm;
SET search_path = nsm_vm, public;
\i test/sql/row_vm.sql
RESET search_path;
SET client_min_messages = warning;
DROP SCHEMA nsm_vm CASCADE;
RESET client_min_messages;
