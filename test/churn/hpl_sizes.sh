#!/usr/bin/env bash
# Pages of the tables of issue 11 and of W1/W3 per access method, by hand:
#   test/churn/hpl_sizes.sh [AMS...]      (default: heap and the three layouts)
# Connection from PGHOST/PGPORT/PGUSER.  Prints table, am, pages, rows per
# page and pages relative to heap.  Rows per page of W1 (Narrow-U, Strings)
# and W3 (lineitem) come from smaller loads than bench/ uses (the figure
# per page does not depend on the row count).
set -euo pipefail
ams=${*:-heap quickstep_nsm quickstep_pax quickstep_hpl}

psql() { command psql -X -q -v ON_ERROR_STOP=1 "$@"; }

# name | columns | SELECT producing the rows (g: generate_series)
tables=$(cat <<'T'
onenull|a int, b int, c int, d int|SELECT g, CASE WHEN g % 3 <> 0 THEN g END, CASE WHEN g % 3 <> 1 THEN g END, CASE WHEN g % 3 <> 2 THEN g END FROM generate_series(1, 10000) g
nullif|a int, b int, c int, d int|SELECT g, nullif(g % 3, 0), nullif(g % 5, 0), nullif(g % 7, 0) FROM generate_series(1, 10000) g
realistic|id int8 NOT NULL, customer int4, created timestamptz, amount numeric(12,2), status text, email text, note text, qty int2, flag bool, ref uuid, score float8, due date|SELECT g, CASE WHEN h(g, 1) THEN g % 5000 END, CASE WHEN h(g, 2) THEN timestamptz '2024-01-01' + g * interval '1 minute' END, CASE WHEN h(g, 3) THEN (g % 100000) / 100.0 END, CASE WHEN h(g, 4) THEN (ARRAY['new', 'paid', 'shipped', 'returned'])[1 + g % 4] END, CASE WHEN h(g, 5) THEN 'user' || g || '@example.com' END, CASE WHEN h(g, 6) THEN repeat(md5(g::text), 1 + g % 3) END, CASE WHEN h(g, 7) THEN (g % 100)::int2 END, CASE WHEN h(g, 8) THEN g % 2 = 0 END, CASE WHEN h(g, 9) THEN md5(g::text)::uuid END, CASE WHEN h(g, 10) THEN g / 7.0 END, CASE WHEN h(g, 11) THEN date '2024-01-01' + g % 365 END FROM generate_series(1, 20000) g
nonulls|a int, b int, c int, d int|SELECT g, g, g, g FROM generate_series(1, 10000) g
narrow_u|c1 int4, c2 int4, c3 int4, c4 int4, c5 int4, c6 int4, c7 int4, c8 int4, c9 int4, c10 int4|SELECT h2(g, 1), h2(g, 2), h2(g, 3), h2(g, 4), h2(g, 5), h2(g, 6), h2(g, 7), h2(g, 8), h2(g, 9), h2(g, 10) FROM generate_series(1, 50000) g
strings|c1 text COLLATE "C", c2 text COLLATE "C", c3 text COLLATE "C", c4 text COLLATE "C", c5 text COLLATE "C", c6 text COLLATE "C", c7 text COLLATE "C", c8 text COLLATE "C", c9 text COLLATE "C", c10 text COLLATE "C"|SELECT s(g, 1), s(g, 2), s(g, 3), s(g, 4), s(g, 5), s(g, 6), s(g, 7), s(g, 8), s(g, 9), s(g, 10) FROM generate_series(1, 20000) g
lineitem|l_orderkey int8 NOT NULL, l_partkey int4 NOT NULL, l_suppkey int4 NOT NULL, l_linenumber int4 NOT NULL, l_quantity numeric(15,2) NOT NULL, l_extendedprice numeric(15,2) NOT NULL, l_discount numeric(15,2) NOT NULL, l_tax numeric(15,2) NOT NULL, l_returnflag char(1) NOT NULL, l_linestatus char(1) NOT NULL, l_shipdate date NOT NULL, l_commitdate date NOT NULL, l_receiptdate date NOT NULL, l_shipinstruct char(25) NOT NULL, l_shipmode char(10) NOT NULL, l_comment varchar(44) NOT NULL|SELECT g / 4, 1 + h2(g, 1) % 20000, 1 + h2(g, 2) % 1000, 1 + g % 7, (1 + h2(g, 3) % 50)::numeric(15,2), round((90000 + h2(g, 4) % 1000000) / 100.0, 2), round((h2(g, 5) % 11) / 100.0, 2), round((h2(g, 6) % 9) / 100.0, 2), (ARRAY['R', 'A', 'N'])[1 + g % 3], (ARRAY['O', 'F'])[1 + g % 2], date '1992-01-01' + h2(g, 7) % 2400, date '1992-01-01' + h2(g, 8) % 2400, date '1992-01-01' + h2(g, 9) % 2400, (ARRAY['DELIVER IN PERSON', 'COLLECT COD', 'NONE', 'TAKE BACK RETURN'])[1 + g % 4], (ARRAY['REG AIR', 'AIR', 'RAIL', 'SHIP', 'TRUCK', 'MAIL', 'FOB'])[1 + g % 7], left(md5(g::text) || md5((g + 1)::text), 10 + h2(g, 10) % 33) FROM generate_series(1, 60000) g
T
)

psql <<'SQL'
SET client_min_messages = warning;
-- about 10 % NULLs per column, independent per column
CREATE OR REPLACE FUNCTION h(g int, c int) RETURNS bool LANGUAGE sql IMMUTABLE
  AS $$ SELECT abs(hashint8(g::int8 * 31 + c)) % 10 <> 0 $$;
CREATE OR REPLACE FUNCTION h2(g int, c int) RETURNS int LANGUAGE sql IMMUTABLE
  AS $$ SELECT abs(hashint8(g::int8 * 131 + c)) % 100000000 $$;
CREATE OR REPLACE FUNCTION s(g int, c int) RETURNS text LANGUAGE sql IMMUTABLE
  AS $$ SELECT left(md5((g * 11 + c)::text) || md5((g * 13 + c)::text), 20) $$;
SQL

printf '%-10s %-14s %7s %8s %9s\n' table am pages rows/pg vs_heap
while IFS='|' read -r name cols sel; do
	heap=
	for am in $ams; do
		t="sz_${name}_${am}"
		psql -c "SET client_min_messages = warning" -c "DROP TABLE IF EXISTS $t" -c "CREATE TABLE $t ($cols) USING $am" -c "INSERT INTO $t $sel"
		read -r pages rows < <(psql -At -F ' ' -c "SELECT pg_relation_size('$t') / 8192, (SELECT count(*) FROM $t)")
		[ "$am" = heap ] && heap=$pages
		printf '%-10s %-14s %7d %8.1f %9s\n' "$name" "$am" "$pages" \
			"$(echo "$rows / $pages" | bc -l)" \
			"$( [ -n "$heap" ] && printf '%.2f' "$(echo "$pages / $heap" | bc -l)" || echo -)"
		psql -c "DROP TABLE $t"
	done
done <<<"$tables"
