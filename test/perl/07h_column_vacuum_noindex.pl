# VACUUM without index cleanup marks the delete-map entries of dead main
# rows dead with no xid (issue 12, F9 of the r3b review; src/column/README.md
# section 4.1), so relfrozenxid passes their deleter while their index
# entries stay.  The marks are generic WAL records, as every delete-map
# change: after an immediate stop, after a crash right after the first pass
# (quickstep.debug_vacuum_crash = 1, reached without an index pass too) and
# on a streaming standby the rows stay invisible by sequential and index
# scans, check_table is clean, and a later VACUUM with index cleanup
# removes them (the block whose rows were all deleted is retired then).
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use QsTest;

my $node = qs_new_node('vacnoindex', allows_streaming => 1);
$node->append_conf('postgresql.conf',
	"autovacuum = off\nrestart_after_crash = on\nquickstep.merge_workers = 0\n");
$node->start;
$node->safe_psql('postgres', q{
	CREATE EXTENSION quickstep_am;
	CREATE TABLE t (id int PRIMARY KEY, v int) USING quickstep_column
	  WITH (quickstep.rows_per_block = 5000);
	CREATE INDEX t_v ON t (v);
	CREATE TABLE h (id int PRIMARY KEY, v int);
	CREATE INDEX h_v ON h (v);
	SET quickstep.column_delta_rows = 0;
	INSERT INTO t SELECT g, g % 101 FROM generate_series(1, 15000) g;
	INSERT INTO h SELECT g, g % 101 FROM generate_series(1, 15000) g;
	VACUUM (FREEZE) t;
	VACUUM (FREEZE) h;
});
$node->backup('bk');
my $standby = PostgreSQL::Test::Cluster->new('vacnoindex_standby');
$standby->init_from_backup($node, 'bk', has_streaming => 1);
$standby->start;

sub same_rows
{
	my ($nd, $what) = @_;
	qs_column_same_rows($node, $nd, $what, 16000, 100);
}

sub blocks
{
	my ($nd) = @_;
	return $nd->safe_psql('postgres',
		q{SELECT count(DISTINCT block_id) FROM quickstep.blocks('t')});
}

# has relfrozenxid of t passed xid $xid?
sub passed
{
	my ($xid) = @_;
	return $node->safe_psql('postgres', qq{
		SELECT age(relfrozenxid) < age('$xid'::xid) FROM pg_class WHERE relname = 't'});
}

sub delete_rows
{
	my ($where) = @_;
	return $node->safe_psql('postgres', qq{
		BEGIN;
		DELETE FROM t WHERE $where;
		DELETE FROM h WHERE $where;
		SELECT txid_current();
		COMMIT;
	});
}

is(blocks($node), '3', 'three blocks');
same_rows($node, 'loaded');

# 1. the first block's rows all, and every third row
my $deleter = delete_rows('id <= 5000 OR id % 3 = 0');
$node->safe_psql('postgres', 'VACUUM (INDEX_CLEANUP off, FREEZE) t');
is(passed($deleter), 't', 'VACUUM (INDEX_CLEANUP off, FREEZE): relfrozenxid passed the deleter');
same_rows($node, 'after VACUUM without index cleanup');
is(blocks($node), '3', 'the block whose rows are all dead stays (its index entries do)');

# 2. an immediate stop: recovery replays the marks
$node->stop('immediate');
$node->start;
same_rows($node, 'after an immediate stop');
is(passed($deleter), 't', 'after an immediate stop: relfrozenxid still past the deleter');
$node->wait_for_catchup($standby, 'replay', $node->lsn('insert'));
same_rows($standby, 'the standby');

# 3. a crash right after the first pass of a VACUUM without index cleanup
# (the marks are in the WAL, pg_class is not updated): the rows stay
# invisible, and the next such VACUUM passes the new deleter
my $deleter2 = delete_rows('id BETWEEN 5001 AND 6000 AND id % 3 <> 0');
my $logpos = -s $node->logfile;
my ($ret) = $node->psql('postgres',
	'SET quickstep.debug_vacuum_crash = 1; VACUUM (INDEX_CLEANUP off, FREEZE) t');
isnt($ret, 0, 'VACUUM stopped after its first pass');
qs_wait_reinit($node, $logpos);
ok($node->poll_query_until('postgres', 'SELECT 1', '1'), 'the server is back');
same_rows($node, 'after a crash following the first pass');
is(passed($deleter2), 'f', 'after the crash: relfrozenxid not updated');
$node->safe_psql('postgres', 'VACUUM (INDEX_CLEANUP off, FREEZE) t');
is(passed($deleter2), 't', 'the next VACUUM without index cleanup passes the deleter');
same_rows($node, 'after the second VACUUM without index cleanup');

# 4. a VACUUM with index cleanup removes them: the all-deleted block is
# retired; an immediate stop and the standby agree
$node->safe_psql('postgres', 'VACUUM t');
same_rows($node, 'after VACUUM');
is(blocks($node), '2', 'after VACUUM: the all-deleted block is retired');
$node->safe_psql('postgres', 'SELECT txid_current()');
$node->safe_psql('postgres', 'VACUUM (FREEZE) t');
is(passed($deleter2), 't', 'VACUUM (FREEZE): relfrozenxid past the deleters');
$node->stop('immediate');
$node->start;
same_rows($node, 'after VACUUM and an immediate stop');
is(blocks($node), '2', 'after an immediate stop: two blocks');
$node->wait_for_catchup($standby, 'replay', $node->lsn('insert'));
same_rows($standby, 'the standby at the end');
is(blocks($standby), '2', 'the standby: two blocks');

# 5. check_table checks a dead entry: one that kept an xid is reported.
# Row 7 of a small table is deleted and marked dead; its entry (xmin, xmax,
# cid zero, t_ctid its own TID, t_infomask2 zero, t_infomask
# XMIN_INVALID | XMAX_COMMITTED | XMAX_INVALID) gets an xmax back.
$standby->stop;
$node->safe_psql('postgres', q{
	CREATE TABLE s (id int PRIMARY KEY) USING quickstep_column;
	SET quickstep.column_delta_rows = 0;
	INSERT INTO s SELECT g FROM generate_series(1, 100) g;
});
my $sctid = $node->safe_psql('postgres', q{SELECT ctid FROM s WHERE id = 7});
my ($svblock, $soff) = $sctid =~ /^\((\d+),(\d+)\)$/;
$node->safe_psql('postgres', q{
	DELETE FROM s WHERE id = 7;
	VACUUM (INDEX_CLEANUP off, FREEZE) s;
});
is($node->safe_psql('postgres', q{SELECT quickstep.check_table('s') IS NOT NULL}), 't',
	'a dead entry checks clean');
my $sfile = $node->data_dir . '/' . $node->safe_psql('postgres', q{SELECT pg_relation_filepath('s')});
$node->stop;
my $img = PostgreSQL::Test::Utils::slurp_file($sfile);
my $dead = quotemeta(pack('VVV', 0, 0, 0) .
	pack('vvv', $svblock >> 16, $svblock & 0xffff, $soff) . pack('vv', 0, 0x0E00));
my @at;
push @at, $-[0] while $img =~ /$dead/gs;
is(scalar @at, 1, "row 7's dead entry is found once");
patch_file($node, $sfile, $at[0] + 4, pack('V', 1234));
my ($r, $o, $e) = $node->psql('postgres',
	q{SET ignore_checksum_failure = on; SET client_min_messages = error; \set VERBOSITY verbose
	  SELECT quickstep.check_table('s')});
isnt($r, 0, 'check_table fails on a dead entry with an xmax');
like($e, qr/XX001: .*the dead delete-map entry of main row 6 of block \d+ keeps an xid or a link/s,
	'naming the row');
is($node->safe_psql('postgres', q{SET ignore_checksum_failure = on;
	SET enable_seqscan = off; SELECT count(*) FROM s WHERE id = 7}), '0',
	'the row stays invisible');

$node->stop;
done_testing();
