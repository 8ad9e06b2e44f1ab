-- test/sql/row_churn.sql on quickstep_nsm, in a schema of its own.
\set am quickstep_nsm
CREATE SCHEMA nsm_churn;
SET search_path = nsm_churn, public;
\i test/sql/row_churn.sql
RESET search_path;
SET client_min_messages = warning;
DROP SCHEMA nsm_churn CASCADE;
RESET client_min_messages;
