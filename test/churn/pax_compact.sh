#!/usr/bin/env bash
# Reproduction of issue 11's deterministic scenario (run by hand):
#   test/churn/pax_compact.sh [ROUNDS] [AM]      (default 1000 quickstep_pax)
# One session, table (id int, v text, w int), v mixing NULLs, 1-21-byte
# values (1-byte varlena header, unaligned) and 150-250-byte values (4-byte
# header, int-aligned).  Each round: DELETE ~30 %, VACUUM, INSERT 50 rows,
# DELETE ~10 % of the NULL rows, VACUUM, check_table, and a comparison of
# every row with what its id says it must hold.  No randomness: every value
# and every choice is a function of id and round.  Stops at the first error.
# Connection: PGHOST/PGPORT/PGUSER/PGDATABASE as for psql.
set -euo pipefail
rounds=${1:-1000}
am=${2:-quickstep_pax}
gen() {
	cat <<SQL
\set ON_ERROR_STOP 1
SET client_min_messages = warning;
DROP TABLE IF EXISTS churn_c;
CREATE TABLE churn_c (id int, v text, w int) USING $am;
CREATE FUNCTION pg_temp.val(i int) RETURNS text LANGUAGE sql IMMUTABLE AS \$\$
  SELECT CASE i % 3
    WHEN 0 THEN NULL
    WHEN 1 THEN substr(md5(i::text), 1, 1 + i % 21)
    ELSE substr(repeat(md5(i::text), 8), 1, 150 + (i * 7) % 101) END \$\$;
INSERT INTO churn_c SELECT g, pg_temp.val(g), -g FROM generate_series(1, 400) g;
SQL
	for r in $(seq 1 "$rounds"); do
		cat <<SQL
\echo round $r
DELETE FROM churn_c WHERE (id::bigint * 7919 + $r * 104729) % 10 < 3;
VACUUM churn_c;
INSERT INTO churn_c SELECT g, pg_temp.val(g), -g FROM generate_series($((400 + (r - 1) * 50 + 1)), $((400 + r * 50))) g;
DELETE FROM churn_c WHERE v IS NULL AND (id::bigint * 31 + $r) % 10 = 0;
VACUUM churn_c;
SELECT quickstep.check_table('churn_c') >= 0 AS ok \gset
SELECT count(*) AS bad FROM churn_c WHERE v IS DISTINCT FROM pg_temp.val(id) OR w <> -id \gset
\if :bad
\echo round $r: :bad rows with wrong values
\quit
\endif
SQL
	done
	echo "SELECT count(*) AS rows, pg_relation_size('churn_c') / 8192 AS pages FROM churn_c;"
	echo "DROP TABLE churn_c;"
}
gen | psql -X -q -v ON_ERROR_STOP=1 2>&1 | tail -n 3
