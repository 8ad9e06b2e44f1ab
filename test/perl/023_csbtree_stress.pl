# csbtree under real concurrency: four pgbench clients insert (splitting
# pages at every level), upsert into a unique index, delete, and scan
# forward and backward at once (unique violations are caught in plpgsql).  Afterwards every index is clean, agrees
# with a sequential scan, and the unique index let no duplicate in.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use QsTest;

my $node = qs_new_node('csb_stress');
$node->start;
$node->safe_psql('postgres', q{
	CREATE EXTENSION quickstep_am;
	CREATE TABLE st (k int, s text, u int);
	CREATE INDEX st_k ON st USING csbtree (k);
	CREATE INDEX st_s ON st USING csbtree (s DESC);
	CREATE UNIQUE INDEX st_u ON st USING csbtree (u);
});

my $dir = PostgreSQL::Test::Utils::tempdir;
open my $w, '>', "$dir/write.sql" or die;
print $w q{\set r random(1, 1000000)
\set c random(1, 200)
INSERT INTO st SELECT (:r * 31 + i) % 200000, 'v' || ((:r + i) % 5000), NULL FROM generate_series(1, 20) i;
DO $$ BEGIN INSERT INTO st VALUES (:r, 'u', :r % 50000); EXCEPTION WHEN unique_violation THEN NULL; END $$;
SELECT count(*) FROM st WHERE k BETWEEN :r % 200000 AND :r % 200000 + 500;
DELETE FROM st WHERE k = :c * 997 % 200000;
};
close $w;
open my $r, '>', "$dir/read.sql" or die;
print $r q{\set r random(1, 1000000)
SET enable_seqscan = off;
SELECT count(*) FROM (SELECT k FROM st WHERE k < :r % 200000 ORDER BY k DESC LIMIT 300) x;
SELECT count(*) FROM (SELECT s FROM st WHERE s > 'v2' ORDER BY s LIMIT 200) x;
};
close $r;

my ($ret, $out, $err) = (0, '', '');
IPC::Run::run(
	[ 'pgbench', '-n', '-c', '4', '-j', '2', '-T', '12',
	  '-h', $node->host, '-p', $node->port,
	  '-f', "$dir/write.sql\@5", '-f', "$dir/read.sql\@1", 'postgres' ],
	'>', \$out, '2>', \$err);
like($out, qr/number of failed transactions: 0 /, 'pgbench ran without failed transactions');
unlike($err, qr/ERROR/, 'and without errors');

$node->safe_psql('postgres', 'VACUUM (INDEX_CLEANUP ON) st');
my $total = $node->safe_psql('postgres', 'SELECT count(*) FROM st');
cmp_ok($total, '>', 1000, "the workload inserted rows ($total)");
for my $idx (qw(st_k st_s st_u))
{
	is($node->safe_psql('postgres', "SELECT leaf_tuples FROM quickstep.check_index('$idx')"),
		$total, "$idx is clean and has one entry per row");
}
my $force = 'SET enable_seqscan = off; SET enable_bitmapscan = off; ';
my $noidx = 'SET enable_indexscan = off; SET enable_indexonlyscan = off; SET enable_bitmapscan = off; ';
for my $q ('SELECT count(*), sum(k) FROM st WHERE k >= 0',
	'SELECT count(*), min(s), max(s) FROM st WHERE s > \'\'',
	'SELECT count(*), sum(u) FROM st WHERE u >= 0')
{
	is($node->safe_psql('postgres', $force . $q), $node->safe_psql('postgres', $noidx . $q),
		"index and seqscan agree: $q");
}
cmp_ok($node->safe_psql('postgres', 'SELECT count(u) FROM st'), '>', 1000,
	'the unique column got values');
is($node->safe_psql('postgres', 'SELECT count(u) = count(DISTINCT u) FROM st'), 't',
	'no duplicate got into the unique index');
$node->stop;
done_testing();
