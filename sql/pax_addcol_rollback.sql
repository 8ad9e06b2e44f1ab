-- test/sql/row_addcol_rollback.sql on quickstep_pax, in a schema of its own.
\set am quickstep_pax
CREATE SCHEMA pax_addcol_rollback;
SET search_path = pax_addcol_rollback, public;
\i test/sql/row_addcol_rollback.sql
RESET search_path;
SET client_min_messages = warning;
DROP SCHEMA pax_addcol_rollback CASCADE;
RESET client_min_messages;
