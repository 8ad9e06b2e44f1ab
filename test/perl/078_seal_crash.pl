# The seal (src/column/README.md section 4.5) and crashes and standbys: a
# seal is a run write and one directory record, like a merge into the open
# block.  kill -9 of the sealing backend (while it sorts, or after the seal
# returned but before its commit) leaves the old version; a crash after a
# committed seal recovers the sorted one; a streaming standby replays the
# seal and reads the sorted version with the same answers and TIDs as the
# primary.  Each time the rows are there exactly once (against a heap
# twin, by sequential, pushdown and index scans), check_table is clean and
# every row keeps its TID.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(usleep);
use FindBin;
use lib $FindBin::RealBin;
use QsTest;

my $node = qs_new_node('seal_crash', allows_streaming => 1);
$node->append_conf('postgresql.conf',
	"autovacuum = off\nrestart_after_crash = on\nquickstep.merge_workers = 0\nmax_wal_size = 1GB\n");
$node->start;
$node->safe_psql('postgres', q{
	CREATE EXTENSION quickstep_am;
	CREATE TABLE t (id int NOT NULL, k text, v int8) USING quickstep_column
	  WITH (quickstep.rows_per_block = 500000, quickstep.sort_key = 'v');
	CREATE TABLE h (id int NOT NULL, k text, v int8);
	CREATE INDEX t_id ON t (id);
	CREATE INDEX t_v ON t (v);
	CREATE TABLE loc (id int, old tid);
});
$node->backup('bk');
my $standby = PostgreSQL::Test::Cluster->new('seal_standby');
$standby->init_from_backup($node, 'bk', has_streaming => 1);
$standby->start;

# rows in no order of v, merged into an open block
my $n = 200000;
$node->safe_psql('postgres', qq{
	SET quickstep.column_delta_rows = 100000000;
	BEGIN;
	INSERT INTO t SELECT g, 'k' || g % 50, (g::int8 * 7919) % 1000003 FROM generate_series(1, $n) g;
	INSERT INTO h SELECT * FROM t;
	COMMIT;
});
is($node->safe_psql('postgres', q{SELECT quickstep.merge('t')}), $n, 'the merge');
$node->safe_psql('postgres', q{INSERT INTO loc SELECT id, ctid FROM t});

sub blocks
{
	my ($nd) = @_;
	return $nd->safe_psql('postgres', q{
		SELECT string_agg(state || ':' || rows || ':' || sorted, ' ' ORDER BY block_id)
		  FROM quickstep.blocks('t') WHERE column_name = 'v'});
}

my $q_tids = q{SELECT md5(string_agg(id || ':' || v || ':' || ctid, ',' ORDER BY id)) FROM t};
my $q_push = q{SELECT count(*) || '/' || sum(id) FROM t WHERE v BETWEEN 1000 AND 300000};

sub same_rows
{
	my ($what) = @_;
	is($node->safe_psql('postgres', q{
		SELECT (SELECT count(*) FROM (SELECT * FROM t EXCEPT ALL SELECT * FROM h) a) || '/' ||
		       (SELECT count(*) FROM (SELECT * FROM h EXCEPT ALL SELECT * FROM t) b) || '/' ||
		       (SELECT count(*) FROM t)}),
		"0/0/$n", "$what: t equals h, every row once");
	is($node->safe_psql('postgres', $q_push),
		$node->safe_psql('postgres', $q_push =~ s/FROM t/FROM h/r), "$what: the pushdown scan agrees with heap");
	is($node->safe_psql('postgres', q{
		SET enable_seqscan = off; SET enable_bitmapscan = off;
		SELECT count(*) FROM h WHERE EXISTS
		  (SELECT 1 FROM t WHERE t.id = h.id AND t.v = h.v AND t.k = h.k)}),
		$n, "$what: every row through the index");
	ok($node->safe_psql('postgres', q{SELECT quickstep.check_table('t') IS NOT NULL}) eq 't',
		"$what: check_table is clean");
	is($node->safe_psql('postgres', q{
		SELECT count(*) FROM t JOIN loc USING (id) WHERE t.ctid <> loc.old}),
		'0', "$what: every row keeps its TID");
}

same_rows('before the seal');
is(blocks($node), "open:$n:false", 'an open block in arrival order');
my $tids = $node->safe_psql('postgres', $q_tids);

# 1. kill -9 of a sealing transaction (mid-seal or before its commit)
my $bg = $node->background_psql('postgres', on_error_stop => 0);
my $pid = $bg->query_safe('SELECT pg_backend_pid()');
$bg->query_safe('BEGIN');
$bg->query_until(qr/started/, q{
	\echo started
	SELECT quickstep.seal('t');
});
ok($node->poll_query_until('postgres', qq{
	SELECT count(*) > 0 FROM pg_stat_activity WHERE pid = $pid AND query LIKE '%quickstep.seal%'}),
	'the seal runs');
usleep(200_000);
qs_kill9($node, $pid);
eval { $bg->quit; };
same_rows('after kill -9 of the sealing transaction');
is(blocks($node), "open:$n:false", 'the open block is the old version');

# 1b. kill -9 after the seal returned, its supersede record on disk (another
# session's commit flushes the WAL), then a ROLLBACK of a seal: the old
# version keeps an aborted seal's xmax, which counts as none (the seal in
# step 2 takes the block at once, not only after VACUUM)
$bg = $node->background_psql('postgres', on_error_stop => 0);
$pid = $bg->query_safe('SELECT pg_backend_pid()');
$bg->query_safe('BEGIN');
like($bg->query_safe(q{SELECT quickstep.seal('t')}), qr/^1$/m,
	'the seal returned, its transaction open');
$node->safe_psql('postgres', 'CREATE TABLE flush_me (i int)');
qs_kill9($node, $pid);
eval { $bg->quit; };
same_rows('after kill -9 following the seal');
is(blocks($node), "open:$n:false", 'after kill -9 following the seal: the old version');
like($node->safe_psql('postgres', q{BEGIN; SELECT quickstep.seal('t'); ROLLBACK}), qr/^1$/m,
	'a seal rolled back');
same_rows('after a rolled back seal');
is(blocks($node), "open:$n:false", 'after a rolled back seal: the old version');

# 2. a committed seal, then a crash of the whole server
is($node->safe_psql('postgres', q{SELECT quickstep.seal('t')}), '1', 'the seal');
is(blocks($node), "sealed:$n:true", 'the block is sealed and sorted');
is($node->safe_psql('postgres', $q_tids), $tids, 'every row with its values at its TID');
crash_and_restart($node);
same_rows('after a crash following a committed seal');
is(blocks($node), "sealed:$n:true", 'recovery kept the sorted version');
is($node->safe_psql('postgres', $q_tids), $tids, 'after the crash: every row at its TID');

# 3. the standby replayed the seal (and the aborted one)
$node->wait_for_catchup($standby, 'replay', $node->lsn('insert'));
is(blocks($standby), "sealed:$n:true", 'the standby reads the sorted version');
is($standby->safe_psql('postgres', $q_tids), $tids, 'the standby: every row at its TID');
is($standby->safe_psql('postgres', $q_push), $node->safe_psql('postgres', $q_push),
	'the standby: the pushdown scan agrees with the primary');
ok($standby->safe_psql('postgres', q{SELECT quickstep.check_table('t') IS NOT NULL}) eq 't',
	'the standby: check_table is clean');

# VACUUM retires the old versions; everything stays
$node->safe_psql('postgres', 'VACUUM t');
same_rows('after VACUUM');
$node->wait_for_catchup($standby, 'replay', $node->lsn('insert'));
is($standby->safe_psql('postgres', $q_tids), $tids, 'the standby after VACUUM: every row at its TID');

done_testing();
