# Issue 12 (column README 4.7): an OPEN block (two merges) whose rows are all deleted: VACUUM
# crashes after retiring it (step 2) and after giving back its pages (step 3);
# the rows equal a heap twin's, check_table is clean, the next merge starts a
# new block (it may take the given-back pages), the standby replays it all.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use QsTest;

my $node = qs_new_node('open_retire', allows_streaming => 1);
$node->append_conf('postgresql.conf',
	"autovacuum = off\nrestart_after_crash = on\nquickstep.merge_workers = 0\n");
$node->start;
$node->safe_psql('postgres', q{
	CREATE EXTENSION quickstep_am;
	CREATE TABLE t (id int PRIMARY KEY, v int) USING quickstep_column
	  WITH (quickstep.rows_per_block = 5000);
	CREATE INDEX t_v ON t (v);
	CREATE TABLE h (id int PRIMARY KEY, v int);
});
$node->backup('bk');
my $standby = PostgreSQL::Test::Cluster->new('r10open_standby');
$standby->init_from_backup($node, 'bk', has_streaming => 1);
$standby->start;

sub ins
{
	my ($from, $to) = @_;
	$node->safe_psql('postgres', qq{
		SET quickstep.column_delta_rows = 100000;
		INSERT INTO t SELECT g, g % 101 FROM generate_series($from, $to) g;
		INSERT INTO h SELECT g, g % 101 FROM generate_series($from, $to) g;
	});
	$node->safe_psql('postgres', q{SELECT quickstep.merge('t')});
}
sub blocks
{
	my ($nd) = @_;
	return $nd->safe_psql('postgres',
		q{SELECT string_agg(DISTINCT block_id || ':' || state, ',') FROM quickstep.blocks('t')});
}
sub same_rows
{
	my ($nd, $what) = @_;
	my $q = q{SELECT count(*) || '/' || coalesce(sum(id), 0) || '/' || coalesce(sum(v), 0) FROM t};
	my $want = $node->safe_psql('postgres', $q =~ s/FROM t/FROM h/r);
	is($nd->safe_psql('postgres', $q), $want, "$what: seq scan");
	is($nd->safe_psql('postgres', q{SET enable_seqscan = off; SET enable_bitmapscan = off;
		SELECT count(*) FROM generate_series(0, 100) x, LATERAL (SELECT id FROM t WHERE v = x) s}),
		$node->safe_psql('postgres', q{SELECT count(*) FROM h}), "$what: index");
	is($nd->safe_psql('postgres', q{SELECT quickstep.check_table('t') IS NOT NULL}), 't', "$what: check_table");
}
sub vacuum_crash
{
	my ($step) = @_;
	my $logpos = -s $node->logfile;
	my ($ret) = $node->psql('postgres', "SET quickstep.debug_vacuum_crash = $step; VACUUM t");
	isnt($ret, 0, "VACUUM stopped at step $step");
	qs_wait_reinit($node, $logpos);
	ok($node->poll_query_until('postgres', 'SELECT 1', '1'), "back after step $step");
}

ins(1, 2000);
ins(2001, 3000);
ins(3001, 3500);
diag('blocks before: ' . blocks($node));
same_rows($node, 'merged');
$node->safe_psql('postgres', q{DELETE FROM t; DELETE FROM h; SELECT txid_current();});
my $crashed = 0;
for my $i (1 .. 4)
{
	my $logpos = -s $node->logfile;
	$node->safe_psql('postgres', 'SELECT txid_current()');
	my ($ret) = $node->psql('postgres', "SET quickstep.debug_vacuum_crash = 2; VACUUM t");
	diag("vacuum $i (crash point 2): ret $ret, blocks " . ($ret ? '-' : blocks($node)));
	if ($ret)
	{
		qs_wait_reinit($node, $logpos);
		$node->poll_query_until('postgres', 'SELECT 1', '1');
		$crashed = 1;
		last;
	}
}
ok($crashed, 'a VACUUM crashed right after retiring the open block');
diag('blocks after crash 2: ' . blocks($node));
same_rows($node, 'after crash at retirement');
$node->safe_psql('postgres', 'SELECT txid_current()');
vacuum_crash(3);
diag('blocks after crash 3: ' . blocks($node));
same_rows($node, 'after crash at reclaim');
$node->safe_psql('postgres', 'SELECT txid_current()');
$node->safe_psql('postgres', 'VACUUM t');
$node->safe_psql('postgres', 'SELECT txid_current()');
$node->safe_psql('postgres', 'VACUUM t');
ins(4001, 4800);
ins(4801, 5000);
diag('blocks after new merges: ' . blocks($node));
same_rows($node, 'new merges');
$node->safe_psql('postgres', q{DELETE FROM t WHERE id % 2 = 0; DELETE FROM h WHERE id % 2 = 0;});
same_rows($node, 'deleted half');
$node->wait_for_catchup($standby, 'replay', $node->lsn('insert'));
same_rows($standby, 'standby');
is(blocks($standby), blocks($node), 'standby blocks');
done_testing();
