# Parallel QuickstepScan shares a block's rows among participants (issue 13,
# src/scan/exec.c steal_range): a range on the sort key that lies inside one
# block is not left to the participant that claimed the block.  Two workers,
# no leader participation; the other block holds no match, so the worker that
# claims it runs out at once and must take half of the other's untaken rows.
# Whether it does in a given run depends on when it starts, so the query is
# run until both workers returned rows (at most 30 times); every run's answer
# must equal the serial scan's, and the blocks EXPLAIN counts must stay 2.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use JSON::PP;
use FindBin;
use lib $FindBin::RealBin;
use QsTest;

my $node = qs_new_node('column_parallel_split');
$node->append_conf('postgresql.conf', "max_worker_processes = 8\nmax_parallel_workers = 4\n");
$node->start;
$node->safe_psql('postgres', q{
	CREATE EXTENSION quickstep_am;
	CREATE TABLE cbig (id int, g int, t text) USING quickstep_column
		WITH (quickstep.rows_per_block = 100000, quickstep.sort_key = 'id');
	INSERT INTO cbig SELECT i, i % 7, 'v' || (i % 1000) FROM generate_series(1, 200000) i;
	DELETE FROM cbig WHERE id % 1000 = 17;
	ANALYZE cbig;
});
is($node->safe_psql('postgres', q{SELECT count(DISTINCT block_id) FROM quickstep.blocks('cbig')}),
	'2', 'two blocks');

# a filter the executor runs per row, so that the claimer is still busy
# when the other worker looks for work
my $q = q{SELECT id, g FROM cbig WHERE id BETWEEN 5000 AND 95000
		  AND md5(md5(t || g)) <> ''};
my $set = q{SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0;
	SET min_parallel_table_scan_size = 0; SET max_parallel_workers_per_gather = 2;
	SET parallel_leader_participation = off; SET enable_indexscan = off;
	SET enable_bitmapscan = off;};

my $serial = $node->safe_psql('postgres', qq{
	SET max_parallel_workers_per_gather = 0; SET quickstep.enable_pushdown = off;
	SELECT count(*) || '/' || sum(hashtext(id::text || ',' || g)) FROM ($q) x});
like($serial, qr{^89911/}, 'serial answer');

like($node->safe_psql('postgres', "$set EXPLAIN (COSTS OFF) $q"),
	qr{Parallel Custom Scan \(QuickstepScan\)}, 'the plan is a parallel QuickstepScan');

my ($split, $wrong, $blocks_wrong, $runs) = (0, 0, 0, 0);
while ($runs < 30 && !$split)
{
	$runs++;
	my $par = $node->safe_psql('postgres', qq{$set
		SELECT count(*) || '/' || sum(hashtext(id::text || ',' || g)) FROM ($q) x});
	$wrong++ if $par ne $serial;
	my $json = $node->safe_psql('postgres',
		"$set EXPLAIN (ANALYZE, VERBOSE, COSTS OFF, TIMING OFF, FORMAT JSON) $q");
	my $plan = decode_json($json)->[0]{Plan};
	my $scan = $plan->{Plans}[0];
	$blocks_wrong++ if ($scan->{'Column Blocks Read'} // -1) != 1
	  || ($scan->{'Blocks Skipped by Min/Max'} // -1) != 1;
	my @rows = map { $_->{'Actual Rows'} } @{ $scan->{Workers} // [] };
	$split = 1 if @rows == 2 && $rows[0] > 0 && $rows[1] > 0;
}
is($wrong, 0, "every parallel answer equals the serial one ($runs runs)");
is($blocks_wrong, 0, 'EXPLAIN counts the claimed block read once and the other skipped, not the shared one again');
ok($split, "both workers returned rows of the one matching block (after $runs runs)");

$node->stop;
done_testing();
