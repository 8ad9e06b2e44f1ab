# Shared scans under load (src/shared/README.md): 60 pgbench clients run
# selective QuickstepScans of one table with quickstep.enable_shared_scan
# on, each answer checked against the answer an unshared scan gave; PL/pgSQL
# loops with exception blocks among them count their rows; then
# the same with writers moving value between rows (every snapshot must see
# the same total) at READ COMMITTED and REPEATABLE READ; a member that is
# terminated, or killed with kill -9, while others share its chunks, does
# not make any other hang or give a wrong answer.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;
use Time::HiRes qw(usleep);
use FindBin;
use lib $FindBin::RealBin;
use QsTest;

my $node = qs_new_node('shared_scan');
$node->append_conf('postgresql.conf', q{
max_connections = 100
quickstep.max_shared_scans = 128
quickstep.merge_workers = 0
autovacuum = off
restart_after_crash = on
max_parallel_workers_per_gather = 0
});
$node->start;
$node->safe_psql('postgres', q{
	CREATE EXTENSION quickstep_am;
	CREATE TABLE t (id int, k int, v int8, pad text) USING quickstep_nsm;
	INSERT INTO t SELECT g, g % 500, 0, repeat('p', 60) FROM generate_series(1, 120000) g;
	ANALYZE t;
	-- the answers of unshared scans
	SET quickstep.enable_shared_scan = off;
	CREATE TABLE ans AS SELECT k, count(*) AS n, sum(id) AS s FROM t GROUP BY k;
});
$node->safe_psql('postgres', q{
	ALTER DATABASE postgres SET quickstep.enable_shared_scan = on;
	ALTER DATABASE postgres SET cpu_operator_cost = 1;
	ALTER DATABASE postgres SET enable_indexscan = off;
	ALTER DATABASE postgres SET enable_bitmapscan = off;
});
like($node->safe_psql('postgres', q{
	EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) SELECT count(*) FROM t WHERE k = 7}),
	qr/Shared Scan: joined/, 'a QuickstepScan of t joins the circle');

my $dir = PostgreSQL::Test::Utils::tempdir;
sub script
{
	my ($name, $text) = @_;
	my $f = "$dir/$name.sql";
	open(my $fh, '>', $f) or die "open $f: $!";
	print $fh $text;
	close $fh;
	return $f;
}

# each reader checks its answer against the unshared one: a wrong answer
# is a division by zero, a failed transaction
my $check = script('check', q{
\set k random(0, 499)
SELECT 1 / (SELECT CASE WHEN (x.n, x.s) IS NOT DISTINCT FROM (a.n, a.s) THEN 1 ELSE 0 END
              FROM (SELECT count(*) AS n, sum(id) AS s FROM t WHERE k = :k) x, ans a
             WHERE a.k = :k);
});
my $conn = '-h ' . $node->host . ' -p ' . $node->port;

$node->pgbench("-n -c 60 -j 4 -T 10 -f $check $conn", 0,
	[qr/number of failed transactions: 0 /, qr/processed: [1-9]/],
	[qr/^$/],
	'60 clients: every shared answer equals the unshared one', {}, 'postgres');

# PL/pgSQL loops with an exception block per row (a subtransaction abort
# every seventh row) while others scan: the loop's query is a member whose
# received messages must survive each abort (review H1)
$node->safe_psql('postgres', q{
	CREATE FUNCTION loop_count(kk int) RETURNS bigint LANGUAGE plpgsql AS $$
	DECLARE
		n bigint := 0;
		r record;
	BEGIN
		FOR r IN SELECT id FROM t WHERE k = kk LOOP
			BEGIN
				PERFORM 1 / (r.id % 7);
			EXCEPTION WHEN division_by_zero THEN
			END;
			n := n + 1;
		END LOOP;
		RETURN n;
	END $$});
my $loop = script('loop', q{
\set k random(0, 499)
SELECT 1 / (SELECT CASE WHEN loop_count(:k) = a.n THEN 1 ELSE 0 END FROM ans a WHERE a.k = :k);
});
$node->pgbench("-n -c 30 -j 4 -T 8 -f $check\@1 -f $loop\@1 $conn", 0,
	[qr/number of failed transactions: 0 /, qr/processed: [1-9]/],
	[qr/^$/],
	'30 clients, half of them PL/pgSQL loops with exception blocks: every loop counts every row',
	{}, 'postgres');

# the sharing happened: a few more clients, each reporting its chunks
my $stats = script('stats', q{
\set k random(0, 499)
SELECT count(*) FROM t WHERE k = :k;
INSERT INTO chunks SELECT * FROM quickstep.shared_scan_backend_stats();
});
$node->safe_psql('postgres', q{
	CREATE TABLE chunks (alone bigint, served bigint, deliveries bigint, received bigint, taken_back bigint)});
$node->pgbench("-n -c 16 -j 4 -t 20 -f $stats $conn", 0,
	[qr/number of failed transactions: 0 /], [qr/^$/], 'clients reporting chunks', {}, 'postgres');
is($node->safe_psql('postgres', q{SELECT sum(received) > 0 AND sum(deliveries) > 0 FROM chunks}),
	't', 'members received chunks scanned by others');

# writers move value between two rows in one transaction: the total stays
# 0 for every snapshot, and the row count never changes
$node->safe_psql('postgres', q{ALTER TABLE t SET (autovacuum_enabled = on)});
$node->safe_psql('postgres', q{CREATE INDEX t_id ON t (id)});
my $write = script('write', q{
\set a random(1, 120000)
\set b random(1, 120000)
SET enable_indexscan = on;
BEGIN;
UPDATE t SET v = v + 5 WHERE id = :a;
UPDATE t SET v = v - 5 WHERE id = :b;
COMMIT;
});
my $read_rc = script('read_rc', q{
SELECT 1 / (CASE WHEN sum(v) = 0 AND count(*) = 120000 THEN 1 ELSE 0 END) FROM t WHERE k >= 0;
});
# (the k < 250 half need not sum to 0; the two halves under one snapshot do)
my $read_rr = script('read_rr', q{
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT 1 / (CASE WHEN sum(v) = 0 AND count(*) = 120000 THEN 1 ELSE 0 END) FROM t WHERE k >= 0;
SELECT 1 / (CASE WHEN (SELECT sum(v) FROM t WHERE k < 250) + (SELECT sum(v) FROM t WHERE k >= 250) = 0
                 THEN 1 ELSE 0 END);
COMMIT;
});
$node->pgbench("-n -c 50 -j 4 -T 10 -f $read_rc\@4 -f $read_rr\@4 -f $write\@2 $conn", 0,
	[qr/number of failed transactions: 0 /, qr/processed: [1-9]/],
	[qr/^$/],
	'50 clients, readers under both isolation levels beside writers: every snapshot sees the total',
	{}, 'postgres');

# A member terminated while others share chunks: a slow member (a volatile
# filter above the scan) is terminated in the middle of its circle, twice,
# while 30 checking clients run; none of them fails or hangs.
sub slow_member
{
	my $h = qs_start_victim($node,
		q{SELECT count(*) FROM t WHERE k >= 0 AND pg_sleep(0.0002) IS NOT NULL});
	usleep(300_000);
	return $h;
}

my ($bout, $berr) = ('', '');
my $bench = IPC::Run::start(
	[ 'pgbench', '-n', '-c', '30', '-j', '4', '-T', '12', '-f', $check,
	  '-h', $node->host, '-p', $node->port, 'postgres' ],
	'>', \$bout, '2>', \$berr);
for my $round (1 .. 2)
{
	my $v = slow_member();
	ok($node->safe_psql('postgres', q{
		SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'victim'}),
		"member terminated mid-circle ($round)");
	$v->finish;
}
$bench->finish;
like($bout, qr/number of failed transactions: 0 /, 'no client failed beside the terminated members');
like($bout, qr/processed: [1-9]/, 'the clients went on');
is($node->safe_psql('postgres', q{SELECT count(*) FROM quickstep.shared_scans}), '0',
	'no member left in the registry');

# kill -9 of a member: the postmaster restarts every backend; afterwards
# shared scans work and answer as before
my $v = slow_member();
my $vpid = $node->safe_psql('postgres',
	q{SELECT pid FROM pg_stat_activity WHERE application_name = 'victim'});
my $logpos = -s $node->logfile;
kill 'KILL', $vpid;
$v->finish;
qs_wait_reinit($node, $logpos);
$node->pgbench("-n -c 20 -j 4 -T 5 -f $check $conn", 0,
	[qr/number of failed transactions: 0 /, qr/processed: [1-9]/],
	[qr/^$/],
	'after kill -9 of a member and the restart: shared answers equal the unshared ones', {}, 'postgres');
like($node->safe_psql('postgres', q{
	EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) SELECT count(*) FROM t WHERE k = 7}),
	qr/Shared Scan: joined/, 'scans join again after the restart');

$node->stop;
done_testing();
