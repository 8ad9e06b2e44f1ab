-- ANALYZE measures each column's correlation with the physical order from a
-- sample sorted by TID (analyze.c, compare_rows): every table access method
-- must hand it rows that name themselves.  Tables bigger than the sample
-- (default_statistics_target 10: 3000 rows), loaded in order: heap's
-- answer, 1, for every layout.
SET default_statistics_target = 10;
SET quickstep.column_delta_rows = 0;
CREATE TABLE ao_heap (id int, r int) USING heap;
CREATE TABLE ao_nsm (id int, r int) USING quickstep_nsm;
CREATE TABLE ao_pax (id int, r int) USING quickstep_pax;
CREATE TABLE ao_hpl (id int, r int) USING quickstep_hpl;
CREATE TABLE ao_col (id int, r int) USING quickstep_column;
INSERT INTO ao_heap SELECT g, (g * 7919) % 50000 FROM generate_series(1, 50000) g;
INSERT INTO ao_nsm SELECT * FROM ao_heap;
INSERT INTO ao_pax SELECT * FROM ao_heap;
INSERT INTO ao_hpl SELECT * FROM ao_heap;
INSERT INTO ao_col SELECT * FROM ao_heap;
ANALYZE ao_heap, ao_nsm, ao_pax, ao_hpl, ao_col;
SELECT tablename, attname, correlation > 0.99 AS ordered, abs(correlation) < 0.2 AS scattered
  FROM pg_stats WHERE tablename LIKE 'ao\_%' ORDER BY tablename, attname;
DROP TABLE ao_heap, ao_nsm, ao_pax, ao_hpl, ao_col;
