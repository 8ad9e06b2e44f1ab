-- test/sql/row_bigrow.sql on quickstep_hpl, in a schema of its own.
-- Differs from expected/nsm_bigrow.out: a record of 8158 bytes that cannot
-- be toasted (STORAGE plain) is refused: an empty HPL page takes at most
-- about 7.1 kB for this table (one 64-byte cache line per field comes first).
\set am quickstep_hpl
CREATE SCHEMA hpl_bigrow;
SET search_path = hpl_bigrow, public;
\i test/sql/row_bigrow.sql
RESET search_path;
SET client_min_messages = warning;
DROP SCHEMA hpl_bigrow CASCADE;
RESET client_min_messages;
