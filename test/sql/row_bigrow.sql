-- Row layout :am (set by the caller, sql/<layout>_bigrow.sql).
-- A record too big for the fillfactor goes on an empty page (the free space
-- map request is capped), as on heap (core insert test).
CREATE TABLE large_tuple_test (a int, b text) USING :am WITH (fillfactor = 10);
ALTER TABLE large_tuple_test ALTER COLUMN b SET STORAGE plain;
INSERT INTO large_tuple_test (select 1, NULL);
INSERT INTO large_tuple_test (select 2, repeat('a', 1000));
SELECT pg_size_pretty(pg_relation_size('large_tuple_test'::regclass, 'main'));
INSERT INTO large_tuple_test (select 3, NULL);
INSERT INTO large_tuple_test (select 4, repeat('a', 8126));
SELECT count(*) FROM large_tuple_test;
SELECT quickstep.check_table('large_tuple_test');
DROP TABLE large_tuple_test;
