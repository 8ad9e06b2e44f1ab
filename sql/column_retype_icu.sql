-- A collation change core makes without a rewrite (src/column/retype.c):
-- dictionaries, min/max and sorted blocks of a text column were built under
-- "C"; after ALTER COLUMN … COLLATE the table is rewritten under the new
-- collation, and every answer equals heap's.  Needs an ICU collation whose
-- order differs from "C" (lower case before upper): servers built without
-- ICU stop at the \quit below (column_retype_icu_1.out).
SELECT EXISTS (SELECT FROM pg_collation WHERE collname = 'und-x-icu') AS icu \gset
\if :icu
\else
\echo 'no ICU collation: nothing to test'
\quit
\endif
CREATE SCHEMA column_retype_icu;
SET search_path = column_retype_icu, public;
SET max_parallel_workers_per_gather = 0;
CREATE TABLE h (id int, s text COLLATE "C");
CREATE TABLE c (id int, s text COLLATE "C") USING quickstep_column
  WITH (quickstep.encoding_s = 'dict');
INSERT INTO h SELECT g, (ARRAY['apple', 'Banana', 'cherry', 'Date', 'eel', 'Fig'])[1 + g % 6]
  FROM generate_series(1, 6000) g;
INSERT INTO c SELECT * FROM h;
SELECT quickstep.merge('c') >= 0 AS merged;
SELECT quickstep.seal('c') >= 0 AS sealed;
CREATE TABLE cs USING quickstep_column WITH (quickstep.sort_key = 's')
  AS SELECT * FROM h;
ALTER TABLE h ALTER COLUMN s TYPE text COLLATE "und-x-icu";
ALTER TABLE c ALTER COLUMN s TYPE text COLLATE "und-x-icu";
ALTER TABLE cs ALTER COLUMN s TYPE text COLLATE "und-x-icu";
SELECT (SELECT count(*) FROM h WHERE s < 'b') AS heap,
       (SELECT count(*) FROM c WHERE s < 'b') AS col,
       (SELECT count(*) FROM cs WHERE s < 'b') AS sorted;
SELECT (SELECT count(*) FROM h WHERE s BETWEEN 'Banana' AND 'Date') AS heap,
       (SELECT count(*) FROM c WHERE s BETWEEN 'Banana' AND 'Date') AS col,
       (SELECT count(*) FROM cs WHERE s BETWEEN 'Banana' AND 'Date') AS sorted;
SELECT s, count(*) FROM c WHERE s > 'Banana' GROUP BY s ORDER BY s;
SELECT min(s), max(s) FROM h;
SELECT min(s), max(s) FROM c;
SELECT min(s), max(s) FROM cs;
-- a qual under the old collation still compares in "C"'s order
SELECT (SELECT count(*) FROM h WHERE s < 'b' COLLATE "C") AS heap,
       (SELECT count(*) FROM c WHERE s < 'b' COLLATE "C") AS col;
SELECT quickstep.check_table('c'), quickstep.check_table('cs');
DROP SCHEMA column_retype_icu CASCADE;
