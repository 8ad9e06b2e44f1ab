-- test/sql/row_maint.sql on quickstep_nsm, in a schema of its own.
\set am quickstep_nsm
CREATE SCHEMA nsm_maint;
SET search_path = nsm_maint, public;
\i test/sql/row_maint.sql
RESET search_path;
SET client_min_messages = warning;
DROP SCHEMA nsm_maint CASCADE;
RESET client_min_messages;
