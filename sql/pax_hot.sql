-- test/sql/row_hot.sql on quickstep_pax, in a schema of its own.
-- Differs from heap's output in one count: HOT updates inside the first
-- transaction (14 of 23, heap 21), since the slot capacity of a PAX page is
-- set when it is filled (100 rows here) and only pruning, after that
-- transaction, can grow it (pax_compact).
\set am quickstep_pax
CREATE SCHEMA pax_hot;
SET search_path = pax_hot, public;
\i test/sql/row_hot.sql
RESET search_path;
SET client_min_messages = warning;
DROP SCHEMA pax_hot CASCADE;
RESET client_min_messages;
