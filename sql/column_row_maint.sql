-- test/sql/row_maint.sql on quickstep_column, in a schema of its own, with
-- every statement merging and sealing the column tables it uses first
-- (quickstep.debug_force_merge, src/merge/force.c): the results must be
-- heap's (THE RULE of src/merge/README.md).
\set am quickstep_column
CREATE SCHEMA column_row_maint;
SET search_path = column_row_maint, public;
SET quickstep.debug_force_merge = merge_seal;
\i test/sql/row_maint.sql
RESET quickstep.debug_force_merge;
RESET search_path;
SET client_min_messages = warning;
DROP SCHEMA column_row_maint CASCADE;
RESET client_min_messages;
