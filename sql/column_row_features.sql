-- test/sql/row_features.sql on quickstep_column, in a schema of its own, with
-- every statement merging and sealing the column tables it uses first
-- (quickstep.debug_force_merge, src/merge/force.c): the results must be
-- heap's (THE RULE of src/merge/README.md).
\set am quickstep_column
CREATE SCHEMA column_row_features;
SET search_path = column_row_features, public;
SET quickstep.debug_force_merge = merge_seal;
\i test/sql/row_features.sql
RESET quickstep.debug_force_merge;
RESET search_path;
SET client_min_messages = warning;
DROP SCHEMA column_row_features CASCADE;
RESET client_min_messages;
