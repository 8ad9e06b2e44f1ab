# The visibility map of the row layouts (NSM, PAX, HPL) through crashes and
# on a hot standby.  The primary has data checksums (so heap's
# XLOG_HEAP2_VISIBLE record carries an image of our page, and hint bits are
# WAL-logged) and wal_consistency_checking for our resource manager
# (XLOG_QS_VM_CLEAR and CLEANUP records are replayed and compared with
# their page images).  For each layout:
#   - kill -9 right after a VACUUM that set the bits: recovery replays the
#     generic records that flag the pages and heap's records that set the
#     bits; every bit is set again and matches its page;
#   - updates, deletes, inserts and row locks on all-visible pages, then
#     kill -9, once without and once after a checkpoint (the map page then
#     travels as an image in XLOG_QS_VM_CLEAR): no bit survives without its
#     page's flag (check_table, pg_visibility), and index-only scans, which
#     trust the bits, return what a sequential scan returns;
#   - kill -9 in the middle of a slow VACUUM;
#   - the standby replays it all: same bits as the primary, consistent
#     with its pages, and index-only scans there give the primary's rows.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(usleep);
use IPC::Run;
use FindBin;
use lib $FindBin::RealBin;
use QsTest;

my $node = qs_new_node('vm_primary', allows_streaming => 1,
	extra => ['--data-checksums']);
$node->append_conf('postgresql.conf', q{
autovacuum = off
wal_consistency_checking = 'quickstep'
wal_keep_size = '2GB'
max_parallel_workers_per_gather = 0
});
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION quickstep_am');
$node->safe_psql('postgres', 'CREATE EXTENSION pg_visibility');

$node->backup('b');
my $standby = PostgreSQL::Test::Cluster->new('vm_standby');
$standby->init_from_backup($node, 'b', has_streaming => 1);
$standby->append_conf('postgresql.conf', q{
max_standby_streaming_delay = -1
max_parallel_workers_per_gather = 0
});
$standby->start;

# crash_and_restart, but the VACUUM backend (busy, it would not notice the
# postmaster's death for a while) is killed right after the postmaster; not
# before, since a postmaster that sees a backend die shuts down at once
# (restart_after_crash is off) and removes the pid file crash_and_restart
# reads
sub crash_with_backend
{
	my ($n, $backend) = @_;
	my $pidfile = $n->data_dir . '/postmaster.pid';
	open my $fh, '<', $pidfile or BAIL_OUT("no $pidfile: $!");
	my $ppid = <$fh>;
	close $fh;
	chomp $ppid;
	$n->kill9;
	kill 'KILL', $backend if $backend ne '';
	for (1 .. 300)
	{
		last unless kill 0, $ppid;
		usleep(100_000);
	}
	for (1 .. 60)
	{
		return if $n->start(fail_ok => 1);
		$n->{_pid} = undef;
		usleep(500_000);
	}
	BAIL_OUT('the crashed node did not start again within 30 s');
}

# every block: "blkno:all_visible,all_frozen" (the map) and whether a block
# is all-visible in the map without PD_ALL_VISIBLE
sub vm_bits
{
	my ($n, $t) = @_;
	return $n->safe_psql('postgres',
		"SELECT string_agg(blkno || ':' || all_visible::int || all_frozen::int, ' ' ORDER BY blkno) FROM pg_visibility_map('$t')");
}

sub consistent
{
	my ($n, $t, $what) = @_;
	is($n->safe_psql('postgres',
			"SELECT count(*) FROM pg_visibility('$t') WHERE all_visible AND NOT pd_all_visible"),
		'0', "$what: no map bit without its page flag");
	my ($rc, $out, $err) = $n->psql('postgres', "SELECT quickstep.check_table('$t') > 0");
	is($out, 't', "$what: check_table clean") or diag($err);
}

# an index-only scan (which trusts the bits) against a sequential scan
sub ios_equals_seqscan
{
	my ($n, $t, $what) = @_;
	my $q = "SELECT count(*) || ':' || coalesce(sum(id), 0) FROM $t WHERE id BETWEEN 1 AND 1000000";
	my $seq = $n->safe_psql('postgres',
		"SET enable_indexscan = off; SET enable_indexonlyscan = off; SET enable_bitmapscan = off; $q");
	my $plan = $n->safe_psql('postgres',
		"SET enable_seqscan = off; SET enable_bitmapscan = off; EXPLAIN (COSTS OFF) $q");
	like($plan, qr/Index Only Scan/, "$what: the plan is an index-only scan");
	my $ios = $n->safe_psql('postgres',
		"SET enable_seqscan = off; SET enable_bitmapscan = off; $q");
	is($ios, $seq, "$what: index-only scan returns the sequential scan's rows");
	return $seq;
}

for my $am (qw(quickstep_nsm quickstep_pax quickstep_hpl))
{
	(my $tag = $am) =~ s/^quickstep_//;
	my $t = "vm_$tag";
	note "layout: $am";

	$node->safe_psql('postgres', qq{
		CREATE TABLE $t (id int PRIMARY KEY, v int, pad text) USING $am;
		INSERT INTO $t SELECT g, g, repeat('p', 30) FROM generate_series(1, 30000) g;
		CHECKPOINT;
		VACUUM (FREEZE) $t;
	});
	my $bits = vm_bits($node, $t);
	unlike($bits, qr/:(?!11)\d\d/, "$tag: VACUUM (FREEZE) set every bit");

	# 1. crash right after the VACUUM that set the bits
	crash_and_restart($node);
	is(vm_bits($node, $t), $bits, "$tag: the bits are replayed after a crash");
	consistent($node, $t, "$tag after crash 1");

	# 2. changes on all-visible pages, no checkpoint, crash
	$node->safe_psql('postgres', qq{
		UPDATE $t SET v = -v WHERE id % 1000 = 1;
		DELETE FROM $t WHERE id % 1000 = 2;
		INSERT INTO $t VALUES (30001, 1, 'new');
		SELECT * FROM $t WHERE id % 1000 = 3 FOR KEY SHARE;
		BEGIN; UPDATE $t SET v = 0 WHERE id % 1000 = 4; ROLLBACK;
	});
	my $changed = $node->safe_psql('postgres', qq{
		SELECT count(*) FROM pg_visibility_map('$t') WHERE NOT all_visible});
	ok($changed >= 30, "$tag: the changes cleared bits ($changed pages)");
	my $before = vm_bits($node, $t);
	my $rows = ios_equals_seqscan($node, $t, "$tag before crash 2");
	crash_and_restart($node);
	is(vm_bits($node, $t), $before, "$tag: cleared bits stay cleared after a crash");
	consistent($node, $t, "$tag after crash 2");
	is(ios_equals_seqscan($node, $t, "$tag after crash 2"), $rows,
		"$tag: the rows survived crash 2");

	# 3. VACUUM, checkpoint, changes (the map pages as images), crash
	$node->safe_psql('postgres', "VACUUM $t");
	$node->safe_psql('postgres', 'CHECKPOINT');
	$node->safe_psql('postgres', qq{
		UPDATE $t SET v = v + 1 WHERE id % 997 = 5;
		DELETE FROM $t WHERE id % 991 = 6;
		SELECT * FROM $t WHERE id % 983 = 7 FOR UPDATE;
		COPY $t FROM PROGRAM 'seq 40001 40100 | sed "s/.*/&\t&\tcopied/"';
	});
	$before = vm_bits($node, $t);
	$rows = ios_equals_seqscan($node, $t, "$tag before crash 3");
	crash_and_restart($node);
	is(vm_bits($node, $t), $before, "$tag: the bits after a checkpoint and a crash");
	consistent($node, $t, "$tag after crash 3");
	is(ios_equals_seqscan($node, $t, "$tag after crash 3"), $rows,
		"$tag: the rows survived crash 3");

	# 4. crash in the middle of a slow VACUUM (cost-based delay)
	$node->safe_psql('postgres', qq{
		UPDATE $t SET v = v + 1 WHERE id % 7 = 0;
		CHECKPOINT;
	});
	my ($out, $err) = ('', '');
	my $h = IPC::Run::start(
		[ 'psql', '-X', '-d', $node->connstr('postgres') . ' application_name=vm_vacuum',
		  '-c', "SET vacuum_cost_delay = '5ms'", '-c', 'SET vacuum_cost_limit = 10',
		  '-c', "VACUUM $t" ],
		'>', \$out, '2>', \$err);
	my ($pid, $set) = ('', 0);
	for (1 .. 1200)
	{
		$pid = $node->safe_psql('postgres',
			"SELECT pid FROM pg_stat_activity WHERE application_name = 'vm_vacuum'");
		$set = $node->safe_psql('postgres',
			"SELECT count(*) FROM pg_visibility_map('$t') WHERE all_visible");
		last if $pid ne '' && $set >= 5;
		usleep(50_000);
	}
	ok($pid ne '' && $set >= 5, "$tag: VACUUM was setting bits ($set pages) when the crash came");
	crash_with_backend($node, $pid);
	$h->kill_kill;
	$h->finish;
	consistent($node, $t, "$tag after a crash during VACUUM");
	ios_equals_seqscan($node, $t, "$tag after a crash during VACUUM");
	$node->safe_psql('postgres', "VACUUM $t");
	is($node->safe_psql('postgres', qq{
		SELECT bool_and(all_visible) FROM pg_visibility_map('$t')}), 't',
		"$tag: VACUUM after the crash sets every bit");
	consistent($node, $t, "$tag after the last VACUUM");

	# 5. the standby replayed it all
	$node->wait_for_catchup($standby, 'replay');
	is(vm_bits($standby, $t), vm_bits($node, $t),
		"$tag: the standby's map equals the primary's");
	consistent($standby, $t, "$tag on the standby");
	is(ios_equals_seqscan($standby, $t, "$tag on the standby"),
		ios_equals_seqscan($node, $t, "$tag on the primary"),
		"$tag: the standby's index-only scans give the primary's rows");
}

# the logs: no consistency-check failure, no map/page disagreement
$standby->stop;
my $slog = slurp_file($standby->logfile);
unlike($slog, qr/inconsistent page found/, 'wal_consistency_checking found nothing on the standby');
unlike($slog, qr/visibility map bit is set/, 'no map/page disagreement on the standby');
$node->stop;
my $plog = slurp_file($node->logfile);
unlike($plog, qr/inconsistent page found/, 'wal_consistency_checking found nothing in crash recovery');
unlike($plog, qr/visibility map bit is set/, 'no map/page disagreement on the primary');
done_testing();
