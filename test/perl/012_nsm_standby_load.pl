# A row layout (quickstep_nsm, or $ENV{QS_AM} when another test file runs
# this one with "do") on a hot standby under load: while pgbench updates the
# primary (pruning and autovacuum at work, every page change replayed from
# generic WAL), REPEATABLE READ readers on the standby always see balanced
# books; at the end the standby agrees with the primary.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;
use FindBin;
use lib $FindBin::RealBin;
use QsTest;

my $am = $ENV{QS_AM} // 'quickstep_nsm';
(my $tag = $am) =~ s/^quickstep_//;
note "layout: $am";

my $node = qs_new_node("${tag}_load_primary", allows_streaming => 1);
$node->append_conf('postgresql.conf', q{
autovacuum_naptime = 1s
autovacuum_vacuum_threshold = 50
autovacuum_vacuum_scale_factor = 0
});
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION quickstep_am');
$node->safe_psql('postgres',
	"ALTER DATABASE postgres SET default_table_access_method = $am");
my $conn = '-h ' . $node->host . ' -p ' . $node->port;
$node->pgbench("-i -s 1 $conn", 0, [qr/^$/], [qr/done in/], 'pgbench -i', {}, 'postgres');

$node->backup('b');
my $standby = PostgreSQL::Test::Cluster->new("${tag}_load_standby");
$standby->init_from_backup($node, 'b', has_streaming => 1);
$standby->append_conf('postgresql.conf', 'max_standby_streaming_delay = 30s');
$standby->start;

# 1/0 when a snapshot sees unbalanced books (not constant-folded)
my $dir = PostgreSQL::Test::Utils::tempdir;
my $script = "$dir/standby_read.sql";
open(my $fh, '>', $script) or die "open $script: $!";
print $fh q{BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT 1 / (CASE WHEN (SELECT sum(bbalance) FROM pgbench_branches) = (SELECT sum(tbalance) FROM pgbench_tellers)
  AND (SELECT sum(tbalance) FROM pgbench_tellers) = (SELECT sum(abalance) FROM pgbench_accounts)
  THEN 1 ELSE 0 END);
COMMIT;
};
close $fh;

my ($rout, $rerr) = ('', '');
my $readers = IPC::Run::start(
	[ 'pgbench', '-n', '-c', '3', '-T', '12', '-f', $script,
	  '-h', $standby->host, '-p', $standby->port, 'postgres' ],
	'>', \$rout, '2>', \$rerr);
$node->pgbench("-c 6 -j 2 -T 12 $conn", 0,
	[qr/number of failed transactions: 0 /], [qr/^(starting vacuum\.\.\.end\.\n)?$/],
	'pgbench on the primary', {}, 'postgres');
$readers->finish;
like($rout, qr/processed: [1-9]/, 'the standby readers ran');
unlike($rerr, qr/division by zero/, 'no standby snapshot saw unbalanced books');
unlike($rerr, qr/(?i)(corrupt|invalid page|could not read)/, 'no read error on the standby');

$node->wait_for_catchup($standby, 'replay');
my $q = q{SELECT sum(abalance), count(*) FROM pgbench_accounts};
is($standby->safe_psql('postgres', $q), $node->safe_psql('postgres', $q),
	'the standby agrees with the primary');
is($standby->safe_psql('postgres',
		q{SELECT quickstep.check_table('pgbench_accounts') >= 100000}),
	't', 'check_table is clean on the standby');

$standby->stop;
$node->stop;
done_testing();
