# VACUUM gives back a column block whose rows are all deleted (issue 12
# D3): the index pass removes the rows' index entries and marks their
# delete-map entries removed, then the block's directory entry becomes
# RETIRED (one generic WAL record), then its run and delete-map pages
# become empty delta pages.  A crash between the steps
# (quickstep.debug_vacuum_crash: a PANIC after the index pass, after the
# retirement, after the pages went back), an immediate stop after a VACUUM that gave the pages back,
# a crash in the middle of a run written into given-back pages,
# and a streaming standby replaying all of it each leave a table whose rows
# equal a heap twin's by sequential and index scans and that check_table
# finds clean.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use QsTest;

my $node = qs_new_node('vacreclaim', allows_streaming => 1);
$node->append_conf('postgresql.conf',
	"autovacuum = off\nrestart_after_crash = on\nquickstep.merge_workers = 0\n");
$node->start;
$node->safe_psql('postgres', q{
	CREATE EXTENSION quickstep_am;
	CREATE TABLE t (id int PRIMARY KEY, v int, k text) USING quickstep_column
	  WITH (quickstep.rows_per_block = 5000);
	CREATE INDEX t_v ON t (v);
	CREATE TABLE h (id int PRIMARY KEY, v int, k text);
	CREATE INDEX h_v ON h (v);
});
$node->backup('bk');
my $standby = PostgreSQL::Test::Cluster->new('vacreclaim_standby');
$standby->init_from_backup($node, 'bk', has_streaming => 1);
$standby->start;

sub load
{
	my ($from, $to) = @_;
	$node->safe_psql('postgres', qq{
		SET quickstep.column_delta_rows = 0;
		INSERT INTO t SELECT g, g % 101, 'k' || g % 7 FROM generate_series($from, $to) g;
		INSERT INTO h SELECT g, g % 101, 'k' || g % 7 FROM generate_series($from, $to) g;
	});
}

sub blocks
{
	my ($nd) = @_;
	return $nd->safe_psql('postgres',
		q{SELECT count(DISTINCT block_id) FROM quickstep.blocks('t')});
}

sub pages
{
	return $node->safe_psql('postgres', q{SELECT pg_relation_size('t') / 8192});
}

# the rows of t are h's, by a sequential scan and through both indexes
sub same_rows
{
	my ($nd, $what) = @_;
	qs_column_same_rows($node, $nd, $what, 20000, 100);
}

sub vacuum_crash
{
	my ($step) = @_;
	my $logpos = -s $node->logfile;
	my ($ret, $out, $err) = $node->psql('postgres',
		"SET quickstep.debug_vacuum_crash = $step; VACUUM t");
	isnt($ret, 0, "VACUUM stopped at step $step");
	qs_wait_reinit($node, $logpos);
	ok($node->poll_query_until('postgres', 'SELECT 1', '1'), "the server is back after step $step");
}

load(1, 15000);
is(blocks($node), '3', 'three blocks');
same_rows($node, 'loaded');
$node->safe_psql('postgres', q{
	DELETE FROM t WHERE id <= 5000; DELETE FROM h WHERE id <= 5000;
	DELETE FROM t WHERE id % 3 = 0; DELETE FROM h WHERE id % 3 = 0;
});
my $before = pages();

# 1. a crash after the index pass: the rows are removed, the block not retired
vacuum_crash(1);
same_rows($node, 'after a crash following the index pass');
is(blocks($node), '3', 'after a crash following the index pass: the block is still there');

# 2. a crash after the retirement: the block is gone, its pages still there
vacuum_crash(2);
same_rows($node, 'after a crash following the retirement');
is(blocks($node), '2', 'after a crash following the retirement: the block is retired');
is(pages(), $before, 'its pages are still in the table');

# 3. the next VACUUM gives the pages back, once a transaction with an xid
# has ended since the retirement (before, a new snapshot still lists the
# block); new rows may take them
$node->safe_psql('postgres', 'SELECT txid_current()');
$node->safe_psql('postgres', 'VACUUM t');
same_rows($node, 'after the VACUUM that gave the pages back');
is(blocks($node), '2', 'two blocks left');
$node->safe_psql('postgres', q{
	INSERT INTO t SELECT g, g % 101, 'n' FROM generate_series(16001, 17000) g;
	INSERT INTO h SELECT g, g % 101, 'n' FROM generate_series(16001, 17000) g;
	VACUUM t;
	INSERT INTO t SELECT g, g % 101, 'n' FROM generate_series(17001, 18000) g;
	INSERT INTO h SELECT g, g % 101, 'n' FROM generate_series(17001, 18000) g;
});
same_rows($node, 'after new rows');
cmp_ok(pages(), '<=', $before, 'new delta rows took pages given back');

# 4. the standby replayed every step
$node->wait_for_catchup($standby, 'replay', $node->lsn('insert'));
same_rows($standby, 'the standby');
is(blocks($standby), '2', 'the standby: two blocks');

# 5. everything deleted, VACUUM gives back every block and truncates,
# then an immediate stop (no checkpoint): recovery replays it
$node->safe_psql('postgres', 'DELETE FROM t; DELETE FROM h; VACUUM t');
is(blocks($node), '0', 'no block left');
$node->safe_psql('postgres', 'SELECT txid_current()');
$node->safe_psql('postgres', 'VACUUM t');
cmp_ok(pages(), '<', 4, 'the table shrank to its metapage and directory');
$node->stop('immediate');
$node->start;
same_rows($node, 'after an immediate stop');
is(blocks($node), '0', 'after an immediate stop: no block');
load(1, 12000);
same_rows($node, 'reloaded');
$node->wait_for_catchup($standby, 'replay', $node->lsn('insert'));
same_rows($standby, 'the standby after the reload');
is(blocks($standby), '3', 'the standby: the new blocks');

# 6. a crash after the pages went back, before the entry says so.  The
# VACUUM that retires the block gives nothing back: no transaction with an
# xid has ended since, so a snapshot taken now still lists the block.  The
# next VACUUM after one did gives the pages back; after the crash,
# recovery has replayed that transaction's end before the page images, so
# no new snapshot lists the block (before this was so, every query after
# the restart read the given-back pages as a corrupt delete map).
$node->safe_psql('postgres', q{
	DELETE FROM t WHERE id <= 5000; DELETE FROM h WHERE id <= 5000;
});
my $logpos = -s $node->logfile;
my ($ret) = $node->psql('postgres',
	"SET quickstep.debug_vacuum_crash = 3; VACUUM t");
is($ret, 0, 'the VACUUM that retires the block gives no page back');
if ($ret != 0)
{
	# it did and crashed: go on, so that the reads below show the damage
	qs_wait_reinit($node, $logpos);
	$node->poll_query_until('postgres', 'SELECT 1', '1');
}
is(blocks($node), '2', 'the block is retired');
same_rows($node, 'after the retirement');
$before = pages();
$node->safe_psql('postgres', 'SELECT txid_current()');
vacuum_crash(3);
same_rows($node, 'after a crash following the give-back');
is(blocks($node), '2', 'after a crash following the give-back: two blocks');
$node->safe_psql('postgres', 'VACUUM t');
same_rows($node, 'after the VACUUM that marked the pages given back');
cmp_ok(pages(), '<=', $before, 'the table did not grow');
$node->wait_for_catchup($standby, 'replay', $node->lsn('insert'));
same_rows($standby, 'the standby after the give-back');

# 7. a run written into the given-back pages (column README section 4.7,
# "Runs into freed page ranges"), crashing after its first page was
# converted (quickstep.debug_vacuum_crash = 4, the WAL flushed): the load
# never committed, the converted page is a run page no directory entry
# names.  The next VACUUM gives it back (qs_colrun_sweep), so a new load
# fits the freed pages again and the file does not grow; without the
# sweep the page would stay a column page for good and the run would go
# to the end of the file.  The standby replays it all.  Rows of md5 text
# make runs of several pages; a block loaded after keeps the freed run
# from being truncated.
sub load_wide
{
	my ($nd, $from, $to, $extra) = @_;
	return $nd->psql('postgres', qq{
		SET quickstep.column_delta_rows = 0;
		$extra
		INSERT INTO t SELECT g, g % 101, md5(g::text) FROM generate_series($from, $to) g;
		INSERT INTO h SELECT g, g % 101, md5(g::text) FROM generate_series($from, $to) g;
	});
}
load_wide($node, 12001, 16000, '');
load_wide($node, 16001, 20000, '');
$node->safe_psql('postgres', q{
	DELETE FROM t WHERE id BETWEEN 12001 AND 16000;
	DELETE FROM h WHERE id BETWEEN 12001 AND 16000;
	VACUUM t;
});
$node->safe_psql('postgres', 'SELECT txid_current()');
$node->safe_psql('postgres', 'VACUUM t');
is(blocks($node), '3', 'a wide block retired, its pages given back');
$before = pages();
$logpos = -s $node->logfile;
($ret) = load_wide($node, 12001, 16000, 'SET quickstep.debug_vacuum_crash = 4;');
isnt($ret, 0, 'the load stopped after converting a given-back page');
qs_wait_reinit($node, $logpos);
ok($node->poll_query_until('postgres', 'SELECT 1', '1'), 'the server is back after the conversion');
same_rows($node, 'after a crash in a run write into given-back pages');
is(blocks($node), '3', 'after the crash: the load left no block');
is(pages(), $before, 'after the crash: the run went into the given-back pages');
$node->safe_psql('postgres', 'VACUUM t');
load_wide($node, 12001, 16000, '');
same_rows($node, 'after a VACUUM and a new load');
is(blocks($node), '4', 'the new load made a block');
is(pages(), $before, 'its run took the pages the crashed load had converted');
$node->wait_for_catchup($standby, 'replay', $node->lsn('insert'));
same_rows($standby, 'the standby after the conversion, the crash and the reload');
is(blocks($standby), '4', 'the standby: four blocks');

$standby->stop;
$node->stop;
done_testing();
