# csbtree survives crashes: after a crash in the middle of bulk inserts
# (one big uncommitted INSERT, and a stream of small committed ones that
# split pages) the index agrees with a sequential scan and check_index()
# finds it clean.
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

my $node = qs_new_node('csb_crash');
$node->start;
$node->safe_psql('postgres', q{
	CREATE EXTENSION quickstep_am;
	CREATE TABLE t (k int, s text);
	INSERT INTO t SELECT i, 'row' || i FROM generate_series(1, 50000) i;
	CREATE INDEX t_k ON t USING csbtree (k);
	CREATE INDEX t_s ON t USING csbtree (s);
});

# The index answers the way a seqscan does, and check_index is clean.
sub agree
{
	my ($label) = @_;
	my $q = 'SELECT count(*), coalesce(sum(k), 0) FROM t WHERE k BETWEEN 1000 AND 900000';
	my $via_index = $node->safe_psql('postgres',
		"SET enable_seqscan = off; SET enable_bitmapscan = off; $q");
	my $via_seq = $node->safe_psql('postgres',
		"SET enable_indexscan = off; SET enable_indexonlyscan = off; SET enable_bitmapscan = off; $q");
	is($via_index, $via_seq, "$label: index scan agrees with seqscan");
	my $plan = $node->safe_psql('postgres',
		"SET enable_seqscan = off; SET enable_bitmapscan = off; EXPLAIN (COSTS OFF) $q");
	like($plan, qr/Index (Only )?Scan using t_k/, "$label: the csbtree index was used");
	my $total = $node->safe_psql('postgres', 'SELECT count(*) FROM t');
	# entries of aborted rows stay until VACUUM
	cmp_ok($node->safe_psql('postgres', 'SELECT leaf_tuples FROM quickstep.check_index(\'t_k\')'),
		'>=', $total, "$label: check_index(t_k) is clean");
	$node->safe_psql('postgres', 'VACUUM (INDEX_CLEANUP ON) t');
	is($node->safe_psql('postgres', 'SELECT leaf_tuples FROM quickstep.check_index(\'t_k\')'),
		$total, "$label: after VACUUM check_index(t_k) is clean and counts every row");
	is($node->safe_psql('postgres', 'SELECT leaf_tuples FROM quickstep.check_index(\'t_s\')'),
		$total, "$label: after VACUUM check_index(t_s) is clean and counts every row");
}

# Start a long statement in the background; crash once the index grew.
# The backend running it is SIGKILLed first: a busy backend does not notice
# its postmaster's death and would keep the old shared memory in use.
sub crash_during
{
	my ($sql) = @_;
	my $before = $node->safe_psql('postgres', "SELECT pg_relation_size('t_k')");
	my ($out, $err) = ('', '');
	my $h = IPC::Run::start(
		[ 'psql', '-X', '-d', $node->connstr('postgres') . ' application_name=csb_workload', '-c', $sql ],
		'>', \$out, '2>', \$err);
	my $pid = '';
	for (1 .. 600)
	{
		$pid = $node->safe_psql('postgres',
			"SELECT pid FROM pg_stat_activity WHERE application_name = 'csb_workload'");
		my $now = $node->safe_psql('postgres', "SELECT pg_relation_size('t_k')");
		last if $pid ne '' && $now > $before + 50 * 8192;
		usleep(50_000);
	}
	ok($pid ne '', 'the workload was running when the crash came');
	kill 'KILL', $pid if $pid ne '';
	crash_and_restart($node);
	$h->kill_kill;
	$h->finish;
}

agree('before any crash');

# 1. A crash during one big uncommitted INSERT.
crash_during(q{INSERT INTO t SELECT (i * 7919) % 1000000, 'big' || i FROM generate_series(1, 3000000) i});
agree('after a crash during a bulk insert');
is($node->safe_psql('postgres', 'SELECT count(*) FROM t'), '50000',
	'the uncommitted rows are gone, the committed ones are there');

# 2. A crash during a stream of committed inserts that split pages.
crash_during(q{DO $$ BEGIN FOR j IN 1..5000 LOOP
	INSERT INTO t SELECT (i * 7919 + j) % 1000000, 'c' || j FROM generate_series(1, 300) i;
	COMMIT; END LOOP; END $$});
my $n = $node->safe_psql('postgres', 'SELECT count(*) FROM t');
cmp_ok($n, '>', 50000, 'some committed batches survived the crash');
is(($n - 50000) % 300, 0, 'whole batches only');
agree('after a crash during committed inserts');

# 3. A crash in the middle of a VACUUM that deletes the leaves a range
# DELETE emptied: every page deletion is one WAL record, so whatever prefix
# of them was replayed leaves a valid tree.  The VACUUM is slowed down by
# the cost delay so that the crash comes while it works on the index.
my $pages_full = $node->safe_psql('postgres', q{SELECT pages FROM quickstep.check_index('t_k')});
$node->safe_psql('postgres', q{DELETE FROM t WHERE k BETWEEN 2000 AND 600000});
{
	my ($out, $err) = ('', '');
	my $h = IPC::Run::start(
		[ 'psql', '-X', '-d', $node->connstr('postgres') . ' application_name=csb_vacuum',
		  '-c', 'SET vacuum_cost_delay = 1', '-c', 'SET vacuum_cost_limit = 20',
		  '-c', 'VACUUM (INDEX_CLEANUP ON) t' ],
		'>', \$out, '2>', \$err);
	my $pid = '';
	for (1 .. 1200)
	{
		$pid = $node->safe_psql('postgres',
			q{SELECT a.pid FROM pg_stat_activity a JOIN pg_stat_progress_vacuum v USING (pid)
			   WHERE a.application_name = 'csb_vacuum' AND v.phase = 'vacuuming indexes'});
		last if $pid ne '';
		usleep(50_000);
	}
	ok($pid ne '', 'the VACUUM was deleting index pages when the crash came');
	usleep(1_500_000);
	kill 'KILL', $pid if $pid ne '';
	crash_and_restart($node);
	$h->kill_kill;
	$h->finish;
}
is($node->safe_psql('postgres', 'SELECT count(*) FROM t WHERE k BETWEEN 2000 AND 600000'), '0',
	'the committed DELETE survived the crash');
agree('after a crash during a VACUUM deleting pages');
cmp_ok($node->safe_psql('postgres', q{SELECT pages FROM quickstep.check_index('t_k')}),
	'<', $pages_full / 2, 'the VACUUM after recovery deleted the emptied leaves');

# The index keeps working after recovery (and reuses the deleted pages).
$node->safe_psql('postgres',
	q{INSERT INTO t SELECT i, 'after' FROM generate_series(1, 20000) i});
agree('after more inserts following recovery');
$node->stop;

done_testing();
