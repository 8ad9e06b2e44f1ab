-- test/sql/row_churn.sql on quickstep_pax, in a schema of its own.
\set am quickstep_pax
CREATE SCHEMA pax_churn;
SET search_path = pax_churn, public;
\i test/sql/row_churn.sql
RESET search_path;
SET client_min_messages = warning;
DROP SCHEMA pax_churn CASCADE;
RESET client_min_messages;
