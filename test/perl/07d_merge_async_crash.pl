# The merge worker commits asynchronously (synchronous_commit = off for
# its merges' transactions, src/merge/README.md section 3; here a session
# with synchronous_commit = off calls quickstep.merge(), which commits
# alike): a crash right after it may lose its commit record, and must then
# leave the table as if the merge had aborted -- every row once, at its
# delta version -- or, when the record survived, as merged.  The
# postmaster and its children are killed (kill -9) at once, or after a
# short delay, after quickstep.merge() returned; in two rounds a
# synchronous UPDATE of a moved row follows the merge first, and must
# survive (its commit record comes after the merge's).  After each restart
# the table equals its heap twin by sequential and index scans, and
# check_table is clean.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(usleep);
use FindBin;
use lib $FindBin::RealBin;
use QsTest;

my $node = qs_new_node('merge_async_crash');
$node->append_conf('postgresql.conf',
	"autovacuum = off\nrestart_after_crash = on\nquickstep.merge_workers = 0\n"
	  . "wal_writer_delay = 10ms\nmax_wal_size = 1GB\n");
$node->start;
$node->safe_psql('postgres', q{
	CREATE EXTENSION quickstep_am;
	CREATE TABLE t (id int NOT NULL, v int8) USING quickstep_column
	  WITH (quickstep.rows_per_block = 500000);
	CREATE TABLE h (id int NOT NULL, v int8);
	CREATE INDEX t_id ON t (id);
});

my $next = 1;
my $merged = 0;
foreach my $round (
	[ 0, 0 ], [ 0, 1 ], [ 2_000, 0 ], [ 20_000, 0 ], [ 20_000, 1 ], [ 200_000, 0 ], [ 0, 0 ])
{
	my ($delay_us, $update) = @$round;
	my ($lo, $hi) = ($next, $next + 4999);
	$next += 5000;
	qs_twin_insert($node, $lo, $hi);
	# as the merge worker commits (worker.c)
	my $moved = $node->safe_psql('postgres',
		q{SET synchronous_commit = off; SELECT quickstep.merge('t')});
	ok($moved > 0, "round $lo: the merge moved rows ($moved)");
	if ($update)
	{
		# synchronous: its commit record flushes the merge's too
		$node->safe_psql('postgres', qq{
			BEGIN;
			UPDATE t SET v = -v WHERE id = $lo;
			UPDATE h SET v = -v WHERE id = $lo;
			COMMIT;
		});
	}
	usleep($delay_us) if $delay_us;
	crash_and_restart($node);

	qs_twin_same($node, "round $lo, crash after ${delay_us} us", $next - 1);
	$merged++ if $node->safe_psql('postgres',
		qq{SELECT count(*) FROM t WHERE id BETWEEN $lo AND $hi AND (ctid::text::point)[0] >= 2147483648})
	  > 0;
}
# how many rounds' merges survived their crash: either outcome is correct
note("merges that survived their crash: $merged of 7");

# a merge after all those crashes still moves the rest
ok($node->safe_psql('postgres', q{SELECT quickstep.merge('t') >= 0}) eq 't', 'a last merge runs');
is($node->safe_psql('postgres', q{SELECT count(*) FROM t}), $next - 1, 'every row once after it');
$node->stop;
done_testing();
