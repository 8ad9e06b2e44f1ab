# Shared scans (src/shared/README.md): members whose rows another backend
# must not judge, and restarts that must not join.
#
# 1. A sub-overflowed snapshot (review H2): a writer holds 70 open
#    subtransactions (more than PGPROC_MAX_CACHED_SUBXIDS), each with an
#    xid (a few insert or delete rows of k = 0 in the table's last chunk),
#    another transaction commits after them (so that their xids fall
#    between the snapshot's xmin and xmax), and a REPEATABLE READ cursor
#    joins the circle; the writer commits; a later scan, whose
#    TransactionXmin is past the subxids (pg_subtrans lookups stop there),
#    must not judge the cursor's rows: the cursor reads every chunk itself
#    and returns its snapshot's rows.  A control round with 10
#    subtransactions is served.
# 2. A restart of a scan whose first walk ran unshared because the registry
#    was full (quickstep.max_shared_scans = 2, review H3) does not join when
#    a slot frees: a correlated subquery's scan, rescanned for each outer
#    row of a cursor.  And a WITH HOLD cursor that ran unshared returns
#    every row once after COMMIT (PostgreSQL 15+ do not rewind a NO SCROLL
#    cursor at commit, they store the rows left: this holds with or without
#    the fix, and is kept as the check of the case the review named).
# 3. quickstep.max_shared_scans = 0 (review L1): the server starts without
#    a registry, every scan runs unshared (EXPLAIN says why) with the rows
#    of the unshared scan, a cursor and a second scan of the same table
#    included, and the view and the counters show nothing shared.  (The
#    GUC's minimum was 1: the server refused to start.)
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use QsTest;

my $node = qs_new_node('shared_snap');
$node->append_conf('postgresql.conf', q{
quickstep.max_shared_scans = 2
quickstep.merge_workers = 0
autovacuum = off
max_parallel_workers_per_gather = 0
});
$node->start;
$node->safe_psql('postgres', q{
	CREATE EXTENSION quickstep_am;
	CREATE TABLE t (id int, k int, pad text) USING quickstep_nsm;
	INSERT INTO t SELECT g, g % 100, repeat('p', 40) FROM generate_series(1, 40000) g;
	ALTER DATABASE postgres SET quickstep.enable_shared_scan = on;
	ALTER DATABASE postgres SET cpu_operator_cost = 1;
	ALTER DATABASE postgres SET enable_indexscan = off;
	ALTER DATABASE postgres SET enable_bitmapscan = off;
});
cmp_ok($node->safe_psql('postgres', q{SELECT pg_relation_size('t') / 8192}), '>=', 256,
	't has at least four chunks');

# the rows of k = 0 an unshared scan returns, as "count sum"
sub want_k0
{
	return $node->safe_psql('postgres', q{
		SET quickstep.enable_shared_scan = off;
		SELECT count(*) || ' ' || sum(id) FROM t WHERE k < 1});
}

# rows of a FETCH as "count sum"
sub count_sum
{
	my @ids = grep { /^\d+$/ } split /\n/, join("\n", @_);
	my $s = 0;
	$s += $_ for @ids;
	return scalar(@ids) . " $s";
}

# One round of (1): $subxacts open subtransactions with an insert each in
# the writer while the cursor joins; returns the cursor's rows ("count
# sum") and the chunks it received from others.
sub overflow_round
{
	my ($subxacts, $base) = @_;
	my $w = $node->background_psql('postgres');
	my $m = $node->background_psql('postgres');
	my $want = want_k0();

	# five rows of k = 0 inserted, three deleted (in the last chunk); the
	# other subtransactions insert rows the cursor's qual drops, so that
	# its messages stay under the queue size
	$w->query_safe('BEGIN');
	$w->query_safe(join('', map {
		"SAVEPOINT s$_; INSERT INTO t VALUES (" . ($base + $_) . ', ' . ($_ <= 5 ? 0 : 50) . ", 'w');"
		  . ($_ <= 3 ? 'DELETE FROM t WHERE id = ' . ($base / 10000 + 100 * $_) . ';' : '') } 1 .. $subxacts));
	$node->safe_psql('postgres', 'SELECT txid_current()');
	$m->query_safe('BEGIN ISOLATION LEVEL REPEATABLE READ');
	$m->query_safe('DECLARE c NO SCROLL CURSOR FOR SELECT id FROM t WHERE k < 1');
	my $first = $m->query_safe('FETCH 1 FROM c');
	is($node->safe_psql('postgres', q{SELECT coalesce(sum(members), 0) FROM quickstep.shared_scans}),
		'1', "$subxacts subxacts: the cursor is a member");
	$w->query_safe('COMMIT');
	# a new scan (TransactionXmin past the writer's xids) takes the chunks
	# after the cursor's first one
	$node->safe_psql('postgres', q{SELECT count(*) FROM t WHERE k < 1});
	my $rest = $m->query_safe('FETCH ALL FROM c');
	my $got = count_sum($first, $rest);
	my $received = $m->query_safe('SELECT chunks_received FROM quickstep.shared_scan_backend_stats()');
	$m->query_safe('COMMIT');
	$m->quit;
	$w->quit;
	is($got, $want, "$subxacts subxacts: the cursor returns its snapshot's rows");
	return $received;
}

cmp_ok(overflow_round(10, 390000000), '>', 0,
	'control (10 subxacts): the cursor was served by the later scan');
is(overflow_round(70, 380000000), '0',
	'sub-overflowed snapshot (70 subxacts): nobody judged the cursor\'s rows');

# (2) registry full during a scan's first walk
my $want = want_k0();
my $a = $node->background_psql('postgres');
my $b = $node->background_psql('postgres');
$a->query_safe('BEGIN');
$a->query_safe('DECLARE x1 NO SCROLL CURSOR FOR SELECT id FROM t WHERE k < 1');
$a->query_safe('FETCH 1 FROM x1');
$a->query_safe('DECLARE x2 NO SCROLL CURSOR FOR SELECT id FROM t WHERE k < 1');
$a->query_safe('FETCH 1 FROM x2');
is($node->safe_psql('postgres', q{SELECT members FROM quickstep.shared_scans}), '2',
	'two members: the registry (two slots) is full');

# a correlated subquery's scan: its first walk unshared, its rescans after
# a slot freed must not join
my $sub_want = $node->safe_psql('postgres', q{
	SET quickstep.enable_shared_scan = off;
	SELECT string_agg(o || ':' || (SELECT count(*) FROM t WHERE k < 1 AND id > o * 10000), ',' ORDER BY o)
	  FROM generate_series(0, 2) o});
$b->query_safe('BEGIN');
$b->query_safe(q{DECLARE s NO SCROLL CURSOR FOR
	SELECT o || ':' || (SELECT count(*) FROM t WHERE k < 1 AND id > o * 10000) FROM generate_series(0, 2) o});
my $sub_first = $b->query_safe('FETCH 1 FROM s');
$a->query_safe('CLOSE x2');
my $sub_rest = $b->query_safe('FETCH ALL FROM s');
is(join(',', grep { /^\d+:\d+$/ } split(/\n/, "$sub_first\n$sub_rest")), $sub_want,
	'the correlated subquery counts every row');
is($b->query_safe(q{SELECT chunks_alone + chunks_served + chunks_received
	FROM quickstep.shared_scan_backend_stats()}), '0',
	'its rescans did not join the circle (its first walk ran unshared)');
$b->query_safe('COMMIT');
$a->query_safe('DECLARE x2 NO SCROLL CURSOR FOR SELECT id FROM t WHERE k < 1');
$a->query_safe('FETCH 1 FROM x2');
is($node->safe_psql('postgres', q{SELECT members FROM quickstep.shared_scans}), '2',
	'the registry is full again');
$b->query_safe('BEGIN');
$b->query_safe('DECLARE c NO SCROLL CURSOR WITH HOLD FOR SELECT id FROM t WHERE k < 1');
my $first = $b->query_safe('FETCH 10 FROM c');
is($node->safe_psql('postgres', q{SELECT members FROM quickstep.shared_scans}), '2',
	'the WITH HOLD cursor ran unshared (registry full)');
# a slot frees; the circle's position is past chunk 0 (x1 took chunk 0)
$a->query_safe('CLOSE x2');
$b->query_safe('COMMIT');
my $rest = $b->query_safe('FETCH ALL FROM c');
is(count_sum($first, $rest), $want,
	'the WITH HOLD cursor returns every row once after its rewind at COMMIT');
$b->query_safe('CLOSE c');
$a->query_safe('COMMIT');
$a->quit;
$b->quit;
is($node->safe_psql('postgres', q{SELECT count(*) FROM quickstep.shared_scans}), '0',
	'no member left in the registry');

# (3) no registry
$node->append_conf('postgresql.conf', 'quickstep.max_shared_scans = 0');
$node->restart;
is($node->safe_psql('postgres', q{SELECT max_shared_scans FROM quickstep.status()}), '0',
	'max_shared_scans = 0: the server starts');
like($node->safe_psql('postgres', q{
	EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT id FROM t WHERE k < 1}),
	qr/Shared Scan: not possible \(quickstep.max_shared_scans is 0\)/,
	'EXPLAIN: a scan is not a member, and says why');
$want = want_k0();
$a = $node->background_psql('postgres');
$a->query_safe('BEGIN');
$a->query_safe('DECLARE z NO SCROLL CURSOR FOR SELECT id FROM t WHERE k < 1');
$first = $a->query_safe('FETCH 1 FROM z');
is($a->query_safe(q{SELECT count(*) || ' ' || sum(id) FROM t WHERE k < 1}), $want,
	'a scan while a cursor of the table is open: every row');
is($node->safe_psql('postgres', q{SELECT count(*) FROM quickstep.shared_scans}), '0',
	'the view shows no circle');
$rest = $a->query_safe('FETCH ALL FROM z');
is(count_sum($first, $rest), $want, 'the cursor returns every row');
is($a->query_safe(q{SELECT chunks_alone + chunks_served + chunks_received + deliveries
	FROM quickstep.shared_scan_backend_stats()}), '0',
	'no chunk was read as a member');
$a->query_safe('COMMIT');
$a->quit;

$node->stop;
done_testing();
