-- test/sql/row_addcol_rollback.sql on quickstep_nsm, in a schema of its own.
\set am quickstep_nsm
CREATE SCHEMA nsm_addcol_rollback;
SET search_path = nsm_addcol_rollback, public;
\i test/sql/row_addcol_rollback.sql
RESET search_path;
SET client_min_messages = warning;
DROP SCHEMA nsm_addcol_rollback CASCADE;
RESET client_min_messages;
