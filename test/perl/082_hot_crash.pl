# Update traffic of the kind HOT makes heap-only (no indexed column changed,
# the new version fits on the page), with index fetches that prune pages on
# the way and VACUUMs in between, cut by kill -9, on a primary with data
# checksums and wal_consistency_checking for our resource manager, and a hot
# standby replaying it all.  For each row layout (NSM, PAX, HPL):
#   - pgbench clients update random rows (a non-indexed counter and a pad of
#     varying length) and log each update in a heap ledger in the same
#     transaction, others read rows through the indexes (opportunistic
#     pruning) and run VACUUM; the primary is killed in the middle, twice;
#   - after each crash recovery: check_table clean, every row's counter
#     equals its committed ledger entries, and each index path (primary
#     key, secondary index, bitmap) returns a sequential scan's rows;
#   - the standby replays it all: the same rows, check_table clean; neither
#     crash recovery nor the standby found a page inconsistent with its image.
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

my $rows = 2000;

my $node = qs_new_node('hot_primary', allows_streaming => 1,
	extra => ['--data-checksums']);
$node->append_conf('postgresql.conf', q{
autovacuum = off
wal_consistency_checking = 'quickstep'
wal_keep_size = '2GB'
max_parallel_workers_per_gather = 0
max_connections = 30
});
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION quickstep_am');

$node->backup('b');
my $standby = PostgreSQL::Test::Cluster->new('hot_standby');
$standby->init_from_backup($node, 'b', has_streaming => 1);
$standby->append_conf('postgresql.conf', q{
max_standby_streaming_delay = -1
max_parallel_workers_per_gather = 0
max_connections = 30
});
$standby->start;

# every row's counter against its ledger, and the digest of each access path
sub check_rows
{
	my ($n, $t, $what) = @_;
	my ($rc, $out, $err) = $n->psql('postgres', "SELECT quickstep.check_table('$t') > 0");
	is($out, 't', "$what: check_table clean") or diag($err);
	is($n->safe_psql('postgres', qq{
		SELECT count(*) FROM $t t
		FULL JOIN (SELECT id, count(*) AS n FROM ${t}_ledger GROUP BY id) l USING (id)
		WHERE t.v IS DISTINCT FROM coalesce(l.n, 0) OR t.k IS DISTINCT FROM t.id}),
		'0', "$what: every row's counter equals its committed updates");
	my $q = "SELECT count(*) || ':' || sum(v) || ':' || sum(length(pad)) FROM $t";
	my $seq = $n->safe_psql('postgres',
		"SET enable_indexscan = off; SET enable_bitmapscan = off; SET enable_indexonlyscan = off; $q");
	is($n->safe_psql('postgres',
			"SET enable_seqscan = off; SET enable_bitmapscan = off; $q WHERE id BETWEEN 1 AND $rows"),
		$seq, "$what: the primary key's index scan returns the sequential scan's rows");
	is($n->safe_psql('postgres',
			"SET enable_seqscan = off; SET enable_bitmapscan = off; $q WHERE k BETWEEN 1 AND $rows"),
		$seq, "$what: the secondary index scan returns the sequential scan's rows");
	is($n->safe_psql('postgres',
			"SET enable_seqscan = off; SET enable_indexscan = off; $q WHERE k BETWEEN 1 AND $rows"),
		$seq, "$what: the bitmap scan returns the sequential scan's rows");
	return $seq;
}

# run pgbench scripts in the background, kill -9 the primary after 'ms'
sub traffic_and_crash
{
	my ($t, $ms) = @_;
	my $dir = PostgreSQL::Test::Utils::tempdir;
	open my $u, '>', "$dir/update.sql" or die;
	print $u qq{\\set id random(1, $rows)
\\set len random(0, 60)
BEGIN;
UPDATE $t SET v = v + 1, pad = repeat('x', :len) WHERE id = :id;
INSERT INTO ${t}_ledger VALUES (:id);
COMMIT;
};
	close $u;
	open my $r, '>', "$dir/read.sql" or die;
	print $r qq{\\set id random(1, $rows)
SET enable_seqscan = off;
SELECT v FROM $t WHERE k BETWEEN :id AND :id + 20;
};
	close $r;
	open my $v, '>', "$dir/vacuum.sql" or die;
	print $v "VACUUM $t;\n";
	close $v;
	my @h;
	for my $spec (["update.sql", 4], ["read.sql", 2], ["vacuum.sql", 1])
	{
		my ($out, $err) = ('', '');
		push @h, IPC::Run::start(
			[ 'pgbench', '-n', '-M', 'simple', '-c', $spec->[1], '-T', '60',
			  '-f', "$dir/$spec->[0]", $node->connstr('postgres') ],
			'>', \$out, '2>', \$err);
	}
	usleep($ms * 1000);
	my $n = $node->safe_psql('postgres', "SELECT count(*) FROM ${t}_ledger");
	crash_and_restart($node);
	for my $h (@h)
	{
		$h->kill_kill;
		$h->finish;
	}
	return $n;
}

for my $am (qw(quickstep_nsm quickstep_pax quickstep_hpl))
{
	(my $tag = $am) =~ s/^quickstep_//;
	my $t = "hot_$tag";
	note "layout: $am";

	$node->safe_psql('postgres', qq{
		CREATE TABLE $t (id int PRIMARY KEY, k int, v int, pad text) USING $am;
		CREATE INDEX ${t}_k ON $t (k);
		CREATE TABLE ${t}_ledger (id int) USING heap;
		INSERT INTO $t SELECT g, g, 0, '' FROM generate_series(1, $rows) g;
		CHECKPOINT;
	});

	# 1. traffic, crash without a checkpoint in between
	my $done = traffic_and_crash($t, 3000);
	ok($done > 0, "$tag: updates committed before crash 1 ($done)");
	check_rows($node, $t, "$tag after crash 1");

	# 2. a checkpoint (full page images of the pruned pages), traffic, crash
	$node->safe_psql('postgres', "VACUUM $t; CHECKPOINT");
	$done = traffic_and_crash($t, 3000);
	ok($done > 0, "$tag: updates committed before crash 2 ($done)");
	my $digest = check_rows($node, $t, "$tag after crash 2");

	# 3. the standby replayed it all
	$node->wait_for_catchup($standby, 'replay');
	is(check_rows($standby, $t, "$tag on the standby"), $digest,
		"$tag: the standby's rows equal the primary's");
}

$standby->stop;
my $slog = slurp_file($standby->logfile);
unlike($slog, qr/inconsistent page found/, 'wal_consistency_checking found nothing on the standby');
$node->stop;
my $plog = slurp_file($node->logfile);
unlike($plog, qr/inconsistent page found/, 'wal_consistency_checking found nothing in crash recovery');
done_testing();
