-- test/sql/row_decode.sql on quickstep_column, in a schema of its own:
-- every row the statements load goes into column blocks
-- (quickstep.column_delta_rows = 0), so decoding sees the logical records
-- of block loads and of DML on main rows (the delete map).
\set am quickstep_column
SET quickstep.column_delta_rows = 0;
CREATE SCHEMA column_decode;
SET search_path = column_decode, public;
\i test/sql/row_decode.sql
RESET search_path;
SET client_min_messages = warning;
DROP SCHEMA column_decode CASCADE;
RESET client_min_messages;
RESET quickstep.column_delta_rows;
