# A crash in the middle of a merge into a non-empty open block
# (src/merge/README.md section 5): recovery replays either the old version
# of the block or the new one, never a mix.  The merge is killed (kill -9
# of its backend, so the postmaster reinitializes and recovery runs) while
# it builds the block's next version, and again after it wrote the new
# version but before it committed; each time the rows committed before are
# there exactly once (against a heap twin, by sequential and index scans)
# with its inserter's xmin, check_table is clean, the block's old rows keep their TIDs, a later merge
# appends to a block again, and VACUUM frees what the dead merge wrote.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(usleep);
use FindBin;
use lib $FindBin::RealBin;
use QsTest;

my $node = qs_new_node('merge_openblock_crash');
# no background merge: this test decides when merges run
$node->append_conf('postgresql.conf',
	"autovacuum = off\nrestart_after_crash = on\nquickstep.merge_workers = 0\nmax_wal_size = 1GB\n");
$node->start;
$node->safe_psql('postgres', q{
	CREATE EXTENSION quickstep_am;
	CREATE TABLE t (id int NOT NULL, k text, v int8) USING quickstep_column
	  WITH (quickstep.rows_per_block = 500000);
	CREATE TABLE h (id int NOT NULL, k text, v int8);
	CREATE INDEX t_id ON t (id);
	CREATE INDEX t_k ON t (k);
	CREATE TABLE loc (id int, old tid);
});

my $next = 1;
# n more rows into the delta of t and into h, committed
sub load
{
	my ($n) = @_;
	my ($lo, $hi) = ($next, $next + $n - 1);
	$next += $n;
	$node->safe_psql('postgres', qq{
		SET quickstep.column_delta_rows = 100000000;
		BEGIN;
		INSERT INTO t SELECT g, 'k' || g % 50, g * 7 FROM generate_series($lo, $hi) g;
		INSERT INTO h SELECT g, 'k' || g % 50, g * 7 FROM generate_series($lo, $hi) g;
		COMMIT;
	});
}

sub blocks
{
	return $node->safe_psql('postgres', q{
		SELECT string_agg(state || ':' || rows, ' ' ORDER BY block_id)
		  FROM quickstep.blocks('t') WHERE column_name = 'id'});
}

# t holds h's rows, each once, by a sequential and by an index scan
sub same_rows
{
	my ($what) = @_;
	is($node->safe_psql('postgres', q{
		SELECT (SELECT count(*) FROM (SELECT * FROM t EXCEPT ALL SELECT * FROM h) a) || '/' ||
		       (SELECT count(*) FROM (SELECT * FROM h EXCEPT ALL SELECT * FROM t) b) || '/' ||
		       (SELECT count(*) FROM t) || '/' || (SELECT count(DISTINCT id) FROM t)}),
		'0/0/' . ($next - 1) . '/' . ($next - 1), "$what: t equals h, every row once");
	is($node->safe_psql('postgres', q{
		SET enable_seqscan = off; SET enable_bitmapscan = off;
		SELECT count(*) FROM h WHERE EXISTS
		  (SELECT 1 FROM t WHERE t.id = h.id AND t.v = h.v AND t.k = h.k)}),
		$next - 1, "$what: every row through the index");
	# the same transaction loaded both: a moved row keeps its inserter's
	# xmin through merges, crashes and replay (the block's origin xmins)
	is($node->safe_psql('postgres', q{
		SELECT count(*) FROM t JOIN h USING (id) WHERE t.xmin <> h.xmin}),
		'0', "$what: every row shows its inserter's xmin");
	ok($node->safe_psql('postgres', q{SELECT quickstep.check_table('t') IS NOT NULL}) eq 't',
		"$what: check_table is clean");
	is($node->safe_psql('postgres', q{
		SELECT count(*) FROM t JOIN loc USING (id) WHERE t.ctid <> loc.old}),
		'0', "$what: the rows that were in main keep their TIDs");
}

sub remember
{
	$node->safe_psql('postgres', q{
		TRUNCATE loc;
		INSERT INTO loc SELECT id, ctid FROM t WHERE (ctid::text::point)[0] >= 2147483648});
}

# a non-empty open block
load(20000);
is($node->safe_psql('postgres', q{SELECT quickstep.merge('t')}), '20000', 'first merge');
is(blocks(), 'open:20000', 'the first merge starts an open block');
remember();

# 1. kill -9 while the merge builds the block's next version
load(400000);
my $bg = $node->background_psql('postgres', on_error_stop => 0);
my $pid = $bg->query_safe('SELECT pg_backend_pid()');
$bg->query_until(qr/started/, q{
	\echo started
	SELECT quickstep.merge('t');
});
ok($node->poll_query_until('postgres', qq{
	SELECT count(*) > 0 FROM pg_stat_activity
	 WHERE pid = $pid AND query LIKE '%quickstep.merge%' AND state = 'active'}),
	'the merge runs');
usleep(300_000);
qs_kill9($node, $pid);
eval { $bg->quit; };
same_rows('after kill -9 during the merge');
is(blocks(), 'open:20000', 'the open block is the old version');

# 2. kill -9 after the merge wrote the new version, before its commit
$bg = $node->background_psql('postgres', on_error_stop => 0);
$pid = $bg->query_safe('SELECT pg_backend_pid()');
$bg->query_safe('BEGIN');
is($bg->query_safe(q{SELECT quickstep.merge('t')}), '400000', 'the merge moved the delta (not committed)');
qs_kill9($node, $pid);
eval { $bg->quit; };
same_rows('after kill -9 before the commit');
is(blocks(), 'open:20000', 'the open block is still the old version');

# VACUUM retires what the dead merges wrote; the block takes no more rows
# (the dead merge's TIDs had index entries), a new open block does
$node->safe_psql('postgres', 'VACUUM t');
same_rows('after VACUUM');
is($node->safe_psql('postgres', q{SELECT quickstep.merge('t')}), '400000', 'a later merge moves the rows');
same_rows('after the later merge');
is(blocks(), 'sealed:20000 open:400000', 'into a new open block');
remember();

# 3. a committed merge into the open block, then a crash of the whole server
load(30000);
is($node->safe_psql('postgres', q{SELECT quickstep.merge('t')}), '30000', 'a merge appends');
is(blocks(), 'sealed:20000 open:430000', 'to the open block');
crash_and_restart($node);
same_rows('after a crash following a committed append');
$node->safe_psql('postgres', 'VACUUM t');
same_rows('after VACUUM of the superseded version');

done_testing();
