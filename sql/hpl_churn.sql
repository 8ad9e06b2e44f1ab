-- test/sql/row_churn.sql on quickstep_hpl, in a schema of its own.
\set am quickstep_hpl
CREATE SCHEMA hpl_churn;
SET search_path = hpl_churn, public;
\i test/sql/row_churn.sql
RESET search_path;
SET client_min_messages = warning;
DROP SCHEMA hpl_churn CASCADE;
RESET client_min_messages;
