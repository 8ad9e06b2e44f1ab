-- test/sql/row_addcol_rollback.sql on quickstep_hpl, in a schema of its own.
\set am quickstep_hpl
CREATE SCHEMA hpl_addcol_rollback;
SET search_path = hpl_addcol_rollback, public;
\i test/sql/row_addcol_rollback.sql
RESET search_path;
SET client_min_messages = warning;
DROP SCHEMA hpl_addcol_rollback CASCADE;
RESET client_min_messages;
