#!/usr/bin/env bash
# make test: install what is missing, then for each PostgreSQL version in
# $PGVERSIONS (default "15 18") build with -Werror, install, start a
# throwaway cluster with quickstep_am preloaded and run every suite:
# pg_regress, isolation, pgTAP, Perl TAP, C unit tests, fuzz targets.
# Ends with one line "N passed, M failed" counting individual tests.
# A suite that dies without reporting counts is one failure.
set -uo pipefail
. "$(dirname "$0")/env.sh"
cd "$QS_ROOT"

PGVERSIONS=${PGVERSIONS:-15 18}
# A subset for development: QS_SUITES="regress isolation" and so on.
QS_SUITES=${QS_SUITES:-regress isolation pgtap perl unit fuzz}
# Perl TAP scripts to run (a glob relative to test/perl/).
QS_PERL_TESTS=${QS_PERL_TESTS:-*.pl}
# pg_regress tests to run (names of sql/ files without .sql); empty: all.
QS_REGRESS=${QS_REGRESS:-}
QS_ISOLATION=${QS_ISOLATION:-}
# The isolation suite runs once per default table access method.
QS_ISOLATION_AMS=${QS_ISOLATION_AMS:-heap quickstep_nsm quickstep_pax quickstep_hpl quickstep_column}
FUZZ_SECONDS=${FUZZ_SECONDS:-10}
WORK=${QS_TEST_DIR:-/tmp/quickstep-test}
LOGS="$QS_ROOT/test/logs"
total_pass=0
total_fail=0
declare -a lines
last_mark=$SECONDS

bash scripts/deps.sh || { echo "0 passed, 1 failed"; exit 1; }
rm -rf "$LOGS"
mkdir -p "$LOGS"

# record SUITE LOG RC PASSED FAILED
record() {
	local suite=$1 log=$2 rc=$3 p=$4 f=$5
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		f=1	# the runner failed without naming a failed test
	fi
	total_pass=$((total_pass + p))
	total_fail=$((total_fail + f))
	lines+=("$(printf '%-28s %4d passed, %d failed  (%ds)' "$suite" "$p" "$f" $((SECONDS - last_mark)))")
	last_mark=$SECONDS
	if [ "$f" -ne 0 ]; then
		echo "---- $suite failed (log: $log) ----"
		tail -n 40 "$log"
		for d in regression.diffs output_iso/regression.diffs; do
			[ -f "$d" ] && head -n 80 "$d"
		done
	fi
}

# pg_regress/pg_isolation_regress: PG 15 prints "name ... ok|FAILED",
# PG 16+ prints TAP lines "ok N - name" / "not ok N - name".
count_regress() {
	local p f
	p=$(grep -cE '(\.\.\. +ok|^ok +[0-9]+ )' "$1")
	f=$(grep -cE '(\.\.\. +FAILED|\.\.\. +failed|^not ok +[0-9]+ )' "$1")
	echo "$p $f"
}

# TAP from prove -v / pg_prove -v: every "ok N"/"not ok N" line, a TODO
# failure counting as a pass as TAP says.
count_tap() {
	local p f
	p=$(grep -cE '^[[:space:]]*ok [0-9]+' "$1")
	f=$(grep -E '^[[:space:]]*not ok [0-9]+' "$1" | grep -vc '# TODO')
	echo "$p $f"
}

count_plain() {	# "<suite>: N passed, M failed" (mk/unit.mk)
	local line
	line=$(grep -E "^$2: [0-9]+ passed, [0-9]+ failed" "$1" | tail -n1)
	[ -n "$line" ] || { echo "0 1"; return; }
	echo "$line" | sed -E 's/.*: ([0-9]+) passed, ([0-9]+) failed.*/\1 \2/'
}

want() { [[ " $QS_SUITES " == *" $1 "* ]]; }

run_version() {
	local ver=$1 bindir port data log rc pf
	bindir=$(pg_bin "$ver") || return
	port=$((${QS_PORT_BASE:-55400} + ver))
	data="$WORK/pg$ver/data"
	export PATH="$bindir:$PATH" PGHOST=/tmp PGPORT=$port PGUSER=postgres

	log="$LOGS/build-$ver.log"
	bash scripts/build.sh "$ver" >"$log" 2>&1
	rc=$?
	record "pg$ver build (-Werror)" "$log" $rc $((rc == 0)) 0
	[ $rc -eq 0 ] || return

	bash scripts/cluster.sh stop "$ver" "$data" 2>/dev/null
	rm -rf "$WORK/pg$ver"
	# wal_level = logical for the decoding tests (sql/*_decode.sql,
	# isolation decode_*); set here, not in cluster.sh, so that the
	# benchmarks' servers keep the default WAL level.  No background merge
	# worker: its passes connect to every database (DROP DATABASE of the
	# suites' own databases would wait for them) and hold a snapshot for a
	# moment (a test expecting quickstep.merge() to move its committed rows
	# would move none); test/perl/076_merge_worker.pl tests the worker.
	# No autovacuum either: its ANALYZE of any table holds a snapshot that
	# keeps a test's VACUUM from setting all-visible bits (pax_vm failed so
	# on a loaded machine); the Perl TAP tests test autovacuum.
	if ! QS_EXTRA_CONF="wal_level = logical
max_replication_slots = 10
quickstep.merge_workers = 0
autovacuum = off
${QS_EXTRA_CONF:-}" bash scripts/cluster.sh start "$ver" "$data" "$port" >"$LOGS/cluster-$ver.log" 2>&1; then
		record "pg$ver cluster start" "$LOGS/cluster-$ver.log" 1 0 1
		return
	fi

	if want regress; then
		log="$LOGS/regress-$ver.log"
		rm -rf results regression.diffs regression.out
		make installcheck-regress PG_CONFIG="$bindir/pg_config" ${QS_REGRESS:+REGRESS="$QS_REGRESS"} >"$log" 2>&1
		rc=$?; pf=$(count_regress "$log")
		record "pg$ver pg_regress" "$log" $rc $pf
		[ -f regression.diffs ] && cp regression.diffs "$LOGS/regress-$ver.diffs"
	fi

	if want isolation; then
		# The specs create tables with the default access method and their
		# expected output is heap's: every row layout must give the same.
		local am
		for am in $QS_ISOLATION_AMS; do
			local db="qs_iso_$am"
			log="$LOGS/isolation-$ver-$am.log"
			rm -rf output_iso
			{
				psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db" &&
					psql -X -q -d "$db" -c 'CREATE EXTENSION quickstep_am' \
						-c "ALTER DATABASE $db SET default_table_access_method = $am" &&
					# column tables: every inserted row into a block, so that
					# the specs' updates, deletes and locks act on main rows
					# (the delete map); the delta is HPL's, tested above
					{ [ "$am" != quickstep_column ] ||
						psql -X -q -d "$db" -c "ALTER DATABASE $db SET quickstep.column_delta_rows = 0"; } &&
					make installcheck-isolation PG_CONFIG="$bindir/pg_config" \
						ISOLATION_OPTS="--inputdir=test/isolation --outputdir=output_iso --use-existing --dbname=$db" \
						${QS_ISOLATION:+ISOLATION="$QS_ISOLATION"}
			} >"$log" 2>&1
			rc=$?; pf=$(count_regress "$log")
			record "pg$ver isolation ($am)" "$log" $rc $pf
			[ -f output_iso/regression.diffs ] && cp output_iso/regression.diffs "$LOGS/isolation-$ver-$am.diffs"
		done
	fi

	if want pgtap; then
		log="$LOGS/pgtap-$ver.log"
		{
			psql -X -q -d postgres -c 'DROP DATABASE IF EXISTS qs_pgtap' -c 'CREATE DATABASE qs_pgtap' &&
				psql -X -q -d qs_pgtap -c 'CREATE EXTENSION pgtap' -c 'CREATE EXTENSION quickstep_am' &&
				pg_prove -v -d qs_pgtap test/pgtap/*.sql
		} >"$log" 2>&1
		rc=$?; pf=$(count_tap "$log")
		record "pg$ver pgTAP" "$log" $rc $pf
	fi

	if want perl; then
		# Perl TAP, two tests at a time by default ($QS_PROVE_JOBS): each makes
		# its own clusters on ports PostgreSQL::Test::Cluster finds free, and
		# most of the suite's time is spent waiting (restarts, standbys,
		# polls), so the two cores overlap it (the suite took 780 s of a
		# 1000 s PG 15 run one at a time).
		# PostgreSQL::Test::Cluster makes its own clusters, as the
		# postgres user, in a directory that user owns.  The wheel ships no
		# Perl test modules; Debian's PG 15 ones drive the PG 18 binaries.
		log="$LOGS/perl-tap-$ver.log"
		local tapdir="$WORK/pg$ver/tap"
		rm -rf "$tapdir"; mkdir -p "$tapdir"; cp -r test/perl "$tapdir/"
		chown -R postgres: "$tapdir"
		# every glob of QS_PERL_TESTS (space-separated) under perl/
		local globs=() pats=()
		read -r -a pats <<<"$QS_PERL_TESTS"
		for g in "${pats[@]}"; do globs+=("perl/$g"); done
		(cd "$tapdir" && runuser -u postgres -- env PATH="$PATH" \
			QS_CHURN_ROUNDS="${QS_CHURN_ROUNDS:-}" QS_CHURN_SEED="${QS_CHURN_SEED:-}" \
			QS_CHURN_TX="${QS_CHURN_TX:-}" QS_SMITH_QUERIES="${QS_SMITH_QUERIES:-}" \
			QS_COL_CHURN_ROUNDS="${QS_COL_CHURN_ROUNDS:-}" QS_KILL9_SEED="${QS_KILL9_SEED:-}" \
			QS_KILL9_ROUNDS="${QS_KILL9_ROUNDS:-}" QS_QDIFF_QUERIES="${QS_QDIFF_QUERIES:-}" \
			QS_QDIFF_EXACT_FLOAT="${QS_QDIFF_EXACT_FLOAT:-}" \
			PERL5LIB=/usr/lib/postgresql/15/lib/pgxs/src/test/perl \
			PG_REGRESS="$(dirname "$("$bindir/pg_config" --pgxs)")/../test/regress/pg_regress" \
			TESTDIR="$tapdir" PG_TEST_TIMEOUT_DEFAULT=120 \
			prove -v --timer -j "${QS_PROVE_JOBS:-2}" --ext .pl ${globs[@]}) >"$log" 2>&1
		rc=$?; pf=$(count_tap "$log")
		record "pg$ver Perl TAP" "$log" $rc $pf
	fi

	if want unit; then
		log="$LOGS/unittest-$ver.log"
		make -s unittest >"$log" 2>&1
		rc=$?; pf=$(count_plain "$log" unittest)
		record "pg$ver C unit" "$log" $rc $pf
	fi

	if want fuzz; then
		log="$LOGS/fuzz-$ver.log"
		make -s fuzz FUZZ_SECONDS="$FUZZ_SECONDS" >"$log" 2>&1
		rc=$?; pf=$(count_plain "$log" fuzz)
		record "pg$ver fuzz (${FUZZ_SECONDS}s each)" "$log" $rc $pf
	fi

	bash scripts/cluster.sh stop "$ver" "$data"
}

for v in $PGVERSIONS; do
	echo "== PostgreSQL $v =="
	run_version "$v"
done

echo
echo "== summary =="
printf '%s\n' "${lines[@]}"
echo "$total_pass passed, $total_fail failed"
[ "$total_fail" -eq 0 ]
