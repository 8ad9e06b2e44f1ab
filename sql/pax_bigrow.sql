-- test/sql/row_bigrow.sql on quickstep_pax, in a schema of its own.
-- Differs from expected/nsm_bigrow.out: the 8158-byte PLAIN-storage record
-- does not fit a PAX page (minipage directory, presence bits and offsets cost
-- about 70 bytes more than a heap page's header and line pointer), so that
-- INSERT fails with "row is too big" and the table has one row fewer.
\set am quickstep_pax
CREATE SCHEMA pax_bigrow;
SET search_path = pax_bigrow, public;
\i test/sql/row_bigrow.sql
RESET search_path;
SET client_min_messages = warning;
DROP SCHEMA pax_bigrow CASCADE;
RESET client_min_messages;
