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

# More participants: four workers and the leader, several runs.
$wrong = 0;
for my $i (1 .. 6)
{
	my $par = $node->safe_psql('postgres', qq{$set SET max_parallel_workers_per_gather = 4;
		SET parallel_leader_participation = on;
		SELECT count(*) || '/' || sum(hashtext(id::text || ',' || g)) FROM ($q) x});
	$wrong++ if $par ne $serial;
}
is($wrong, 0, 'four workers and the leader: every answer equals the serial one');

# Index sub-block probes (rows of a bitmap) inside the shared ranges.
$node->safe_psql('postgres', q{
	CREATE TABLE cidx (id int, g text COLLATE "C", t text) USING quickstep_column
		WITH (quickstep.rows_per_block = 100000, quickstep.sort_key = 'id',
			  quickstep.index_columns = 'g');
	INSERT INTO cidx SELECT i, CASE WHEN i <= 100000 THEN 'k' || (i % 50) ELSE 'z' END,
		'v' || (i % 1000) FROM generate_series(1, 200000) i;
	DELETE FROM cidx WHERE id % 997 = 3;
	ANALYZE cidx;
});
my $qp = q{SELECT id, t FROM cidx WHERE g = 'k7' AND md5(md5(t)) <> ''};
my $serial_p = $node->safe_psql('postgres', qq{
	SET max_parallel_workers_per_gather = 0; SET quickstep.enable_pushdown = off;
	SELECT count(*) || '/' || sum(hashtext(id::text || t)) FROM ($qp) x});
$wrong = 0;
for my $i (1 .. 6)
{
	$wrong++ if $node->safe_psql('postgres', qq{$set
		SELECT count(*) || '/' || sum(hashtext(id::text || t)) FROM ($qp) x}) ne $serial_p;
}
is($wrong, 0, "index sub-block probes in shared ranges: answers equal ($serial_p)");

# How many of six runs with three workers (the leader taking part in three,
# not in the others) give another answer than $expected.
sub wrong_answers
{
	my ($query, $expected) = @_;
	my $n = 0;
	for my $lp ('on', 'off')
	{
		for my $i (1 .. 3)
		{
			$n++ if $node->safe_psql('postgres', qq{$set SET max_parallel_workers_per_gather = 3;
				SET parallel_leader_participation = $lp; $query}) ne $expected;
		}
	}
	return $n;
}

# Rescans of the Gather (a correlated subquery), the leader taking part or
# not: each rescan hands out blocks and slots anew (a leader keeping its old
# slot shared it with a worker and lost rows).
my $qr = q{SELECT x, (SELECT count(*) || '/' || sum(hashtext(id::text)) || '/' || x FROM cbig
	WHERE id BETWEEN 5000 AND 95000 AND md5(md5(t || g)) <> '') FROM generate_series(1, 4) x};
my $serial_r = $node->safe_psql('postgres', "SET max_parallel_workers_per_gather = 0; $qr");
like($node->safe_psql('postgres', "$set SET max_parallel_workers_per_gather = 3; EXPLAIN (COSTS OFF) $qr"),
	qr{Gather.*\n.*Parallel Custom Scan \(QuickstepScan\)}s, 'the subquery is a parallel QuickstepScan');
is(wrong_answers($qr, $serial_r), 0, 'rescanned parallel scans: every answer equals the serial one');

# The aggregate scan (aggexec.c) shares ranges too: GROUP BY over the range,
# rescanned, against the same query without aggregate pushdown.
my $qa = q{SELECT x, (SELECT string_agg(g || ':' || c || ':' || s, ',' ORDER BY g) FROM
	(SELECT g, count(*) AS c, sum(id) AS s FROM cbig WHERE id BETWEEN 5000 AND 95000 GROUP BY g) a)
	FROM generate_series(1, 3) x};
my $serial_a = $node->safe_psql('postgres', "SET max_parallel_workers_per_gather = 0;
	SET quickstep.enable_agg_pushdown = off; $qa");
like($node->safe_psql('postgres', "$set SET max_parallel_workers_per_gather = 3; EXPLAIN (COSTS OFF) $qa"),
	qr{Partial Aggregates Pushed}, 'the GROUP BY is computed in a parallel scan');
is(wrong_answers($qa, $serial_a), 0,
	'parallel aggregate scans sharing ranges: every answer equals the serial one');

$node->stop;
done_testing();
