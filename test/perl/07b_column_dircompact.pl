# VACUUM compacts the block directory of a column table (src/column/README.md
# section 4.7, "Compaction of the directory"): it appends FREE-range
# entries for the freed pages, then packs the chain in place, one generic
# WAL record {metapage, W, R} per step.  A crash after the FREE entries
# (quickstep.debug_vacuum_crash = 5) and after the first pack step (6)
# leaves a table whose rows equal a heap twin's and that check_table finds
# clean, and the next VACUUM finishes the compaction.  A streaming standby
# (wal_consistency_checking = generic on the primary) replays rounds of
# merges and compactions while readers scan the table on it: no error, no
# hang, and the same rows once caught up; promoted, it compacts too.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;
use FindBin;
use lib $FindBin::RealBin;
use QsTest;

my $node = qs_new_node('dircompact', allows_streaming => 1);
$node->append_conf('postgresql.conf',
	"autovacuum = off\nrestart_after_crash = on\nquickstep.merge_workers = 0\n"
	  . "wal_consistency_checking = generic\n");
$node->start;
$node->safe_psql('postgres', q{
	CREATE EXTENSION quickstep_am;
	CREATE TABLE t (id int PRIMARY KEY, v int) USING quickstep_column
	  WITH (quickstep.rows_per_block = 1000);
	CREATE INDEX t_v ON t (v);
	CREATE TABLE h (id int PRIMARY KEY, v int);
	CREATE INDEX h_v ON h (v);
});
$node->backup('bk');
my $standby = PostgreSQL::Test::Cluster->new('dircompact_standby');
$standby->init_from_backup($node, 'bk', has_streaming => 1);
$standby->start;

my $round = 0;

# one round: 60 rows into both, a merge into t's open block (a new version
# of it), a transaction with an xid, two VACUUMs (retire, then reclaim the
# old versions); compaction with trigger $min (-1: the built-in rule)
sub rounds
{
	my ($n, $min) = @_;
	for (1 .. $n)
	{
		$round++;
		my ($from, $to) = ($round * 60 - 59, $round * 60);
		$node->safe_psql('postgres', qq{
			INSERT INTO t SELECT g, g % 89 FROM generate_series($from, $to) g;
			INSERT INTO h SELECT g, g % 89 FROM generate_series($from, $to) g;
			SELECT quickstep.merge('t');
			SELECT txid_current();
		});
		$node->safe_psql('postgres',
			"SET quickstep.debug_dir_compact_min = $min; VACUUM t; VACUUM t");
	}
}

sub entries
{
	my ($nd) = @_;
	return $nd->safe_psql('postgres',
		q{SELECT entries FROM quickstep.column_directory('t')});
}

# the rows of t are h's, by a sequential scan and through both indexes
sub same_rows
{
	my ($nd, $what) = @_;
	qs_column_same_rows($node, $nd, $what, $round * 60, 88);
}

sub vacuum_crash
{
	my ($step) = @_;
	my $logpos = -s $node->logfile;
	my ($ret, $out, $err) = $node->psql('postgres',
		"SET quickstep.debug_dir_compact_min = 0; SET quickstep.debug_vacuum_crash = $step; VACUUM t");
	isnt($ret, 0, "VACUUM stopped at step $step");
	like(slurp_file($node->logfile, $logpos), qr/stopping at step $step/, "the PANIC was at step $step");
	qs_wait_reinit($node, $logpos);
	ok($node->poll_query_until('postgres', 'SELECT 1', '1'), "the server is back after step $step");
}

# 1. retired versions accumulate with no compaction (a trigger never met)
rounds(30, 1000000);
my $grown = entries($node);
cmp_ok($grown, '>=', 30, "without compaction the directory grows ($grown entries)");
same_rows($node, 'before any compaction');

# 2. a crash after the FREE-range entries: nothing packed, ranges listed
# twice at most
rounds(1, 1000000);
vacuum_crash(5);
same_rows($node, 'after a crash following the FREE entries');
cmp_ok($node->safe_psql('postgres',
		q{SELECT free_entries FROM quickstep.column_directory('t')}), '>', 0,
	'the FREE-range entries survived the crash');

# 3. a crash after the first pack step: a partly packed, valid chain
rounds(1, 1000000);
vacuum_crash(6);
same_rows($node, 'after a crash following the first pack step');

# 4. the next VACUUM finishes the compaction
$node->safe_psql('postgres', 'SET quickstep.debug_dir_compact_min = 0; VACUUM t');
my $packed = entries($node);
cmp_ok($packed, '<', 20, "the next VACUUM compacted ($grown -> $packed entries)");
same_rows($node, 'after the compaction');

# 4b. a crash in a compaction that gives an aborted merge's delete map back
# (R5, src/column/README.md section 4.7): the merge into a new block of r
# changed its rows in its own transaction, so its version had a delete
# map of its own; the compaction gives those pages back before it removes
# the entries (a crash at step 5 leaves entries whose root is no longer
# theirs), and the rows, check_table and the next compaction are fine.
# Without wal_consistency_checking for r: VACUUM sets hint bits on the
# aborted merge's marks (not WAL-logged, as heap's), then logs a generic
# record for the same delta page whose delta does not carry them, and
# generic WAL's masking (unlike heap's) does not ignore hint bits, so the
# replay's check reports a page heap's rules call consistent (checked off
# for the whole server while r is written and read: any reader may prune)
$node->safe_psql('postgres', "ALTER SYSTEM SET wal_consistency_checking = ''; SELECT pg_reload_conf()");
$node->safe_psql('postgres', q{
	CREATE EXTENSION pageinspect;
	CREATE TABLE r (id int PRIMARY KEY, v int) USING quickstep_column
	  WITH (quickstep.rows_per_block = 1000);
	INSERT INTO r SELECT g, g FROM generate_series(1, 300) g;
});
$node->safe_psql('postgres', q{
	BEGIN;
	SET LOCAL quickstep.debug_merge_hold = on;
	SELECT quickstep.merge('r');
	UPDATE r SET v = -v WHERE id <= 30;
	DELETE FROM r WHERE id BETWEEN 31 AND 40;
	ROLLBACK;
});
my $delmap_pages = q{SELECT count(*) FROM generate_series(0, pg_relation_size('r') / 8192 - 1) b
	WHERE substr(get_raw_page('r', b::int), 8177, 4) = '\x51534358'::bytea};
cmp_ok($node->safe_psql('postgres', $delmap_pages), '>', 0,
	'the aborted merge left a delete map of its own');
$node->safe_psql('postgres', 'SELECT txid_current()') for 1 .. 2;
$node->safe_psql('postgres', 'VACUUM r; VACUUM r');
{
	my $logpos = -s $node->logfile;
	my ($ret) = $node->psql('postgres',
		"SET quickstep.debug_dir_compact_min = 0; SET quickstep.debug_vacuum_crash = 5; VACUUM r");
	isnt($ret, 0, 'VACUUM of r stopped at step 5');
	like(slurp_file($node->logfile, $logpos), qr/stopping at step 5/, 'the PANIC was at step 5');
	qs_wait_reinit($node, $logpos);
	ok($node->poll_query_until('postgres', 'SELECT 1', '1'), 'the server is back');
}
is($node->safe_psql('postgres', 'SELECT count(*), sum(v), count(*) FILTER (WHERE v < 0) FROM r'),
	'300|45150|0', 'r: every row, none changed, after the crash');
ok($node->safe_psql('postgres', q{SELECT quickstep.check_table('r') IS NOT NULL}) eq 't',
	'r: check_table is clean after the crash');
$node->safe_psql('postgres', 'SET quickstep.debug_dir_compact_min = 0; VACUUM r; VACUUM r');
is($node->safe_psql('postgres', $delmap_pages), '0',
	'the next compaction: no delete-map page left');
ok($node->safe_psql('postgres', q{SELECT quickstep.check_table('r') IS NOT NULL}) eq 't',
	'r: check_table is clean after the next compaction');
is($node->safe_psql('postgres', q{SET enable_seqscan = off; SELECT count(*), sum(v) FROM r WHERE id > 0}),
	'300|45150', 'r: the same rows through its index');

$node->safe_psql('postgres', 'DROP TABLE r; ALTER SYSTEM RESET wal_consistency_checking; SELECT pg_reload_conf()');

# 5. the standby replays rounds of compactions while readers scan t on it
$node->wait_for_catchup($standby, 'replay', $node->lsn('insert'));
same_rows($standby, 'the standby after the crashes');
my $dir = PostgreSQL::Test::Utils::tempdir;
my $script = "$dir/standby_read.sql";
open(my $fh, '>', $script) or die "open $script: $!";
print $fh q{SELECT count(*), sum(v) FROM t;
SET enable_seqscan = off;
SELECT count(*) FROM t WHERE v = 7;
SELECT count(*) FROM t WHERE id BETWEEN 100 AND 400;
RESET enable_seqscan;
SELECT entries FROM quickstep.column_directory('t');
};
close $fh;
my ($rout, $rerr) = ('', '');
my $readers = IPC::Run::start(
	[ 'pgbench', '-n', '-c', '3', '-T', '25', '-f', $script,
	  '-h', $standby->host, '-p', $standby->port, 'postgres' ],
	'>', \$rout, '2>', \$rerr);
rounds(40, 0);
ok($readers->finish, 'the standby readers ended without an error')
  or diag($rerr);
like($rout, qr/processed: [1-9]/, 'the standby readers ran');
cmp_ok(entries($node), '<', 25, 'the directory stayed small on the primary');
$node->wait_for_catchup($standby, 'replay', $node->lsn('insert'));
same_rows($standby, 'the standby after the compactions');
is(entries($standby), entries($node), 'the standby lists the same entries');

# 6. an immediate stop after compactions: recovery replays them
rounds(3, 0);
$node->stop('immediate');
$node->start;
same_rows($node, 'after an immediate stop');

# 7. the standby, promoted, compacts its own directory
$node->wait_for_catchup($standby, 'replay', $node->lsn('insert'));
$node->stop;
$standby->promote;
$standby->safe_psql('postgres', q{
	INSERT INTO t SELECT g, g % 89 FROM generate_series(900001, 900060) g;
	SELECT quickstep.merge('t');
	SELECT txid_current();
});
$standby->safe_psql('postgres',
	'SET quickstep.debug_dir_compact_min = 0; VACUUM t; VACUUM t; VACUUM t');
is($standby->safe_psql('postgres', q{SELECT count(*) FROM t WHERE id > 900000}),
	'60', 'the promoted standby merged and compacted');
ok($standby->safe_psql('postgres', q{SELECT quickstep.check_table('t') IS NOT NULL}) eq 't',
	'the promoted standby: check_table is clean');

done_testing();
