# Sourced by the callgrind benchmarks (bench/w2/callgrind.sh,
# bench/w5/callgrind.sh): instructions per transaction, counted exactly by
# valgrind's callgrind, so that a shared, loaded machine still gives numbers
# that can be compared (TPS there is noise, instruction counts are not).
#
# The caller sets: ver, port, dir, txns, ams, and defines cg_setup AM (SQL and
# tools run against the server on $port: it creates the benchmark's tables
# with AM as the default table access method).  It writes $dir/txn_n.sql
# (preload, then TXNS transactions) and $dir/txn_0.sql (the preload alone),
# one statement per line, as a single-user backend reads them.
#
#   cg_init AM      initdb a data directory of its own for AM, run
#                   cg_setup AM in it, stop the server
#   cg_init_all     unless NOINIT is set: build and install quickstep_am,
#                   then cg_init every AM of $ams
#   cg_measure AM   run a fresh copy of it twice by one single-user backend
#                   under callgrind, with txn_n.sql and with txn_0.sql; the
#                   difference divided by TXNS is printed (startup and the
#                   shutdown checkpoint of what was dirtied cancel out, but
#                   for the part the transactions add)
#   cg_incl FILE FN...  the inclusive Ir of the functions FN in a callgrind
#                   file, summed

# every callgrind benchmark needs valgrind: installed here, once
if ! command -v valgrind >/dev/null; then
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq valgrind >/dev/null
fi

cg_bindir() { pg_bin "$ver"; }

cg_init()
{
	local am=$1 d=$dir/init-$1/data
	bash scripts/cluster.sh stop "$ver" "$d" 2>/dev/null || true
	rm -rf "$dir/init-$am"
	QS_EXTRA_CONF="shared_buffers = 256MB
max_parallel_workers_per_gather = 0
jit = off
synchronous_commit = off
autovacuum = off
quickstep.merge_workers = 0" bash scripts/cluster.sh start "$ver" "$d" "$port"
	"$(cg_bindir)/psql" -X -q -h /tmp -p "$port" -U postgres -d postgres \
		-c "CREATE EXTENSION quickstep_am" -c "CREATE EXTENSION pg_prewarm"
	cg_setup "$am"
	bash scripts/cluster.sh stop "$ver" "$d"
}

cg_init_all()
{
	local am
	[ -n "${NOINIT:-}" ] && return 0
	bash scripts/build.sh "$ver" >/dev/null
	for am in $ams; do
		cg_init "$am"
	done
}

cg_summ() { grep -E '^summary:|^totals:' "$1" | head -1 | awk '{print $2}'; }

cg_measure()
{
	local am=$1 tag n z
	chown -R postgres: "$dir"
	for tag in n 0; do
		rm -rf "$dir/run"
		cp -a "$dir/init-$am/data" "$dir/run"
		runuser -u postgres -- valgrind --tool=callgrind \
			--callgrind-out-file="$dir/$am-$tag.cg" \
			"$(cg_bindir)/postgres" --single -D "$dir/run" postgres \
			<"$dir/txn_$tag.sql" >"$dir/$am-$tag.out" 2>"$dir/$am-$tag.err"
	done
	rm -rf "$dir/run"
	n=$(cg_summ "$dir/$am-n.cg")
	z=$(cg_summ "$dir/$am-0.cg")
	python3 -c "print('%.0f' % (($n - $z) / $txns))"
}

cg_incl()
{
	local f=$1
	shift
	callgrind_annotate --inclusive=yes --threshold=100 "$f" 2>/dev/null |
		python3 -c '
import re, sys
names, seen, tot = set(sys.argv[1:]), set(), 0
for line in sys.stdin:	# read it all: no SIGPIPE for callgrind_annotate
    m = re.match(r"\s*([\d,]+)\s+\(.*?\)\s+\S*:(\S+)", line) or re.match(r"\s*([\d,]+)\s+\S*:(\S+)", line)
    if not m:
        continue
    name = m.group(2).split(chr(39))[0]	# fn and its recursion fn'"'"'2: the outer one only
    if name in names and name not in seen:
        seen.add(name)
        tot += int(m.group(1).replace(",", ""))
print(tot)' "$@"
}
