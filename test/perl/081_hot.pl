# HOT chains of quickstep_nsm through crashes and on a hot standby, with
# wal_consistency_checking for our resource manager: every PRUNE and
# PRUNE_HOT record (opportunistic pruning that redirects chain roots and
# frees heap-only versions, VACUUM's pruning and second pass) is replayed by
# the layout and compared with the primary's page image, in crash recovery
# and on the standby.
#   - HOT updates, index reads and VACUUMs from concurrent clients, kill -9
#     in the middle: after recovery check_table is clean (redirects and
#     chains), the index (through the chains) gives the sequential scan's
#     rows;
#   - more of that traffic to its end: the standby, which replayed it all,
#     answers the primary's rows by index and by sequential scan.
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

my $node = qs_new_node('hot_primary', allows_streaming => 1);
$node->append_conf('postgresql.conf', q{
autovacuum = off
wal_consistency_checking = 'quickstep'
wal_keep_size = '2GB'
max_parallel_workers_per_gather = 0
});
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION quickstep_am');

$node->backup('b');
my $standby = PostgreSQL::Test::Cluster->new('hot_standby');
$standby->init_from_backup($node, 'b', has_streaming => 1);
$standby->append_conf('postgresql.conf', q{
max_standby_streaming_delay = -1
max_parallel_workers_per_gather = 0
});
$standby->start;

$node->safe_psql('postgres', q{
	CREATE TABLE hot_t (id int PRIMARY KEY, k int, v int, pad text) USING quickstep_nsm;
	CREATE INDEX hot_t_k ON hot_t (k);
	INSERT INTO hot_t SELECT g, g, 0, repeat('p', 20) FROM generate_series(1, 200) g;
});

my $upd = $node->basedir . '/hot_upd.sql';
open my $fh, '>', $upd or die;
print $fh "\\set id random(1, 200)\n"
  . "UPDATE hot_t SET v = v + 1 WHERE id = :id;\n"
  . "SELECT v FROM hot_t WHERE id = :id;\n";
close $fh;
my $vac = $node->basedir . '/hot_vac.sql';
open $fh, '>', $vac or die;
print $fh "VACUUM hot_t;\n";
close $fh;

sub rows
{
	my ($n, $how) = @_;
	my $set = $how eq 'index'
	  ? 'SET enable_seqscan = off; SET enable_bitmapscan = off;'
	  : 'SET enable_indexscan = off; SET enable_indexonlyscan = off; SET enable_bitmapscan = off;';
	return $n->safe_psql('postgres',
		"$set SELECT count(*) || '/' || string_agg(id || ':' || v, ',' ORDER BY id) FROM hot_t WHERE id > 0");
}

sub consistent
{
	my ($n, $what) = @_;
	my ($rc, $out, $err) = $n->psql('postgres', "SELECT quickstep.check_table('hot_t') > 0");
	is($out, 't', "$what: check_table clean") or diag($err);
	is(rows($n, 'index'), rows($n, 'seq'), "$what: index scans give the sequential scan's rows");
	like(rows($n, 'seq'), qr{^200/}, "$what: 200 rows");
}

sub hot_updates
{
	$node->safe_psql('postgres', 'SELECT pg_stat_force_next_flush()');
	return $node->safe_psql('postgres',
		"SELECT n_tup_hot_upd FROM pg_stat_user_tables WHERE relname = 'hot_t'");
}

# 1. traffic, kill -9 in its middle
my ($out, $err) = ('', '');
my $h = IPC::Run::start(
	[ 'pgbench', '-n', '-c', '4', '-j', '2', '-t', '1000000',
		'-f', "$upd\@50", '-f', "$vac\@1", $node->connstr('postgres') ],
	'>', \$out, '2>', \$err);
my $n = 0;
for (1 .. 6000)
{
	$n = $node->safe_psql('postgres',
		"SELECT n_tup_hot_upd FROM pg_stat_user_tables WHERE relname = 'hot_t'");
	last if $n >= 3000;
	usleep(50_000);
}
ok($n >= 3000, "HOT updates ran before the crash ($n)");
crash_and_restart($node);
$h->kill_kill;
$h->finish;
consistent($node, 'after a crash during HOT updates and pruning');

# 2. the same traffic to its end, then the standby
$node->command_ok(
	[ 'pgbench', '-n', '-c', '4', '-j', '2', '-t', '1500',
		'-f', "$upd\@50", '-f', "$vac\@1", $node->connstr('postgres') ],
	'HOT updates and VACUUMs after recovery');
ok(hot_updates() > 1000, 'updates were HOT after recovery');
$node->safe_psql('postgres', 'VACUUM hot_t');
consistent($node, 'primary at the end');
$node->wait_for_catchup($standby, 'replay');
consistent($standby, 'standby');
is(rows($standby, 'index'), rows($node, 'index'),
	"the standby's index scans give the primary's rows");

$standby->stop;
my $slog = slurp_file($standby->logfile);
unlike($slog, qr/inconsistent page found/, 'wal_consistency_checking found nothing on the standby');
$node->stop;
my $plog = slurp_file($node->logfile);
unlike($plog, qr/inconsistent page found/, 'wal_consistency_checking found nothing in crash recovery');
done_testing();
