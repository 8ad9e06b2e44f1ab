-- test/sql/row_maint.sql on quickstep_hpl, in a schema of its own.
-- Differs from expected/nsm_maint.out only physically: page counts, the
-- pageinspect queries (heap_page_items cannot read HPL pages: their counts
-- are of bytes read as line pointers), and the HINT text of check.c, which
-- names quickstep_nsm.
\set am quickstep_hpl
CREATE SCHEMA hpl_maint;
SET search_path = hpl_maint, public;
\i test/sql/row_maint.sql
RESET search_path;
SET client_min_messages = warning;
DROP SCHEMA hpl_maint CASCADE;
RESET client_min_messages;
