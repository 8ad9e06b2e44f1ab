# Column tables under concurrent bulk loads (issue 12): sessions COPY and
# INSERT … SELECT into one table at once, some commit and some abort,
# while REPEATABLE READ readers check that their snapshot never changes
# under them (no block appears or disappears for a snapshot that did not
# see it) and READ COMMITTED readers only ever see whole loads.  Then the
# table holds exactly the committed loads, every TID range is distinct
# (check_table), and index scans agree with sequential scans.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use QsTest;

my $node = qs_new_node('column_concurrent');
$node->append_conf('postgresql.conf', "max_wal_size = 1GB\nmax_connections = 40\n");
$node->start;

my $rows = 30000;
my $copyfile = $node->basedir . '/load.copy';
$node->safe_psql('postgres', qq{
	CREATE EXTENSION quickstep_am;
	CREATE TABLE src (id int, g int, t text);
	INSERT INTO src SELECT i, i % 7, 'v' || (i % 100) FROM generate_series(1, $rows) i;
	COPY src TO '$copyfile';
	CREATE TABLE c (id int, g int, t text) USING quickstep_column;
	CREATE INDEX c_g ON c (g);
});
chmod 0644, $copyfile;

# loaders: each script loads one batch of $rows rows; every third aborts
my $dir = $node->basedir;
open my $f, '>', "$dir/copy_commit.sql" or die;
print $f "COPY c FROM '$copyfile';\n";
close $f;
open $f, '>', "$dir/copy_abort.sql" or die;
print $f "BEGIN;\nCOPY c FROM '$copyfile';\nROLLBACK;\n";
close $f;
open $f, '>', "$dir/insel_commit.sql" or die;
print $f "INSERT INTO c SELECT * FROM src;\n";
close $f;

# readers: a REPEATABLE READ snapshot counts twice with loads committing in
# between and must get the same number; a READ COMMITTED count must be a
# whole number of loads.  (Each check's CASE is constant once psql has put
# the counts in: a 1 / 0 beside a non-constant condition would be folded,
# and fail, at plan time.)
open $f, '>', "$dir/read_rr.sql" or die;
print $f <<"EOS";
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT count(*) AS a FROM c \\gset
SELECT pg_sleep(0.05);
SELECT count(*) AS b FROM c \\gset
SELECT CASE WHEN :a = :b THEN 1 ELSE 1 / 0 END;
SELECT count(*) AS ia FROM c WHERE g = 3 \\gset
SELECT CASE WHEN :ia * 7 BETWEEN :a - 7 * (:a / $rows) AND :a + 7 * (:a / $rows) THEN 1 ELSE 1 / 0 END;
COMMIT;
SELECT count(*) AS n FROM c \\gset
SELECT CASE WHEN :n % $rows = 0 THEN 1 ELSE 1 / 0 END;
EOS
close $f;

my $conn = '-n';
$node->pgbench("$conn -c 6 -j 2 -t 4 -f $dir/copy_commit.sql\@3 -f $dir/copy_abort.sql\@1 "
	  . "-f $dir/insel_commit.sql\@2 -f $dir/read_rr.sql\@4",
	0, [qr/processed: 24\/24/], [qr/^$/],
	'concurrent loads, aborts and readers: no error, every reader check holds');

my $n = $node->safe_psql('postgres', 'SELECT count(*) FROM c');
is($n % $rows, 0, "the table holds whole loads only ($n rows)");
is($node->safe_psql('postgres', qq{
	SELECT count(*) FROM (SELECT id, g, t, count(*) AS k FROM c GROUP BY 1, 2, 3) x
	WHERE k <> $n / $rows}), '0', 'every row of src appears once per committed load');
is($node->safe_psql('postgres', q{SELECT quickstep.check_table('c') >= count(*) FROM c}), 't',
	'check_table: directory, distinct TID ranges and every block are sound');
is($node->safe_psql('postgres', q{
	SET enable_seqscan = off; SET enable_bitmapscan = off;
	SELECT count(*) FROM c WHERE g = 3}),
	$node->safe_psql('postgres', q{SELECT count(*) FROM c WHERE g = 3}),
	'index scan and sequential scan agree');
$node->safe_psql('postgres', 'VACUUM c');
is($node->safe_psql('postgres', 'SELECT count(*) FROM c'), $n, 'VACUUM keeps every row');

# two loads of the same keys into a table with a unique index: the second
# waits for the first (whose rows are still buffered for a block, not yet
# written) and fails with a unique violation when it commits, as on heap;
# with the first rolled back, the second goes through
{
	$node->safe_psql('postgres', qq{CREATE TABLE cu (id int, t text) USING quickstep_column;
		CREATE UNIQUE INDEX cu_id ON cu (id)});
	for my $end ('COMMIT', 'ROLLBACK')
	{
		$node->safe_psql('postgres', 'TRUNCATE cu');
		my $a = $node->background_psql('postgres');
		# the second session must outlive the error it is to report
		my $b = $node->background_psql('postgres', on_error_stop => 0);
		$a->query_safe(qq{SET quickstep.column_delta_rows = 0; BEGIN; INSERT INTO cu SELECT id, t FROM src});
		$b->query_until(qr/go/, "SET quickstep.column_delta_rows = 0;\n\\echo go\nINSERT INTO cu SELECT id, t FROM src;\n");
		$node->poll_query_until('postgres',
			q{SELECT count(*) > 0 FROM pg_locks WHERE locktype = 'transactionid' AND NOT granted})
		  or die 'the second load does not wait';
		pass("$end: the second load waits for the first, whose rows are buffered");
		$a->query_safe($end);
		my ($out, $failed) = $b->query('SELECT 1');
		if ($end eq 'COMMIT')
		{
			is($failed, 1, 'COMMIT: the second load fails');
			like($b->{stderr}, qr/duplicate key value violates unique constraint "cu_id"/,
				'COMMIT: with a unique violation');
		}
		else
		{
			is($failed, 0, 'ROLLBACK: the second load goes through');
			# its unique checks fetch the rolled-back load's entries, and a
			# fetch outside this load's buffered rows must not write them
			# out early (it wrote one block per row: 30,000 blocks)
			is($node->safe_psql('postgres', q{SELECT count(DISTINCT block_id) <= 2 FROM quickstep.blocks('cu') WHERE rows > 0}),
				't', 'ROLLBACK: the second load is written as whole blocks');
		}
		is($node->safe_psql('postgres', q{SELECT count(*), count(DISTINCT id) FROM cu}),
			"$rows|$rows", "$end: every key once");
		eval { $a->quit; };
		eval { $b->quit; };
	}
}

$node->stop;
done_testing();
