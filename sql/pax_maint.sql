-- test/sql/row_maint.sql on quickstep_pax, in a schema of its own.
-- Differs from expected/nsm_maint.out only physically: page counts
-- (PAX fits more narrow records per page), and the heap_page_items()
-- queries, which read heap/NSM pages and find no heap items on a PAX page
-- (their counts are of bytes read as line pointers).
\set am quickstep_pax
CREATE SCHEMA pax_maint;
SET search_path = pax_maint, public;
\i test/sql/row_maint.sql
RESET search_path;
SET client_min_messages = warning;
DROP SCHEMA pax_maint CASCADE;
RESET client_min_messages;
