# RETIRED directory entries are judged by their flags, never by the commit
# log (src/column/README.md section 4.5): once VACUUM retired the entry of
# an aborted load, relfrozenxid passes its xid and pg_xact may be
# truncated under it.  Here the xid counter jumps (pg_resetwal -x) three
# pg_xact segments ahead and every database is frozen, so the segment that
# held the aborted loads' xids is removed; quickstep.blocks() (which asked
# the commit log about retired entries: "could not access status of
# transaction"), the stats view, scans, check_table, VACUUM, merge and
# seal must still work.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use QsTest;

my $node = qs_new_node('clog_truncate');
$node->append_conf('postgresql.conf',
	"autovacuum = off\nquickstep.merge_workers = 0\n");
$node->start;
$node->safe_psql('postgres', q{
	CREATE EXTENSION quickstep_am;
	CREATE TABLE t (id int NOT NULL, v int) USING quickstep_column;
	CREATE INDEX t_id ON t (id);
	SET quickstep.column_delta_rows = 0;
	INSERT INTO t SELECT g, g FROM generate_series(1, 2000) g;
});

# a load rolled back before its block was written (its entry stays
# PENDING), and one rolled back after (a read in the transaction flushed it)
my $x1 = $node->safe_psql('postgres', q{
	SET quickstep.column_delta_rows = 0;
	BEGIN;
	SELECT pg_current_xact_id();
	INSERT INTO t SELECT g, g FROM generate_series(2001, 4000) g;
	ROLLBACK;
});
my $x2 = $node->safe_psql('postgres', q{
	SET quickstep.column_delta_rows = 0;
	BEGIN;
	SELECT pg_current_xact_id();
	INSERT INTO t SELECT g, g FROM generate_series(4001, 6000) g;
	SELECT FROM t WHERE id < 0;
	ROLLBACK;
});
ok($x1 < 1048576 && $x2 < 1048576, "the aborted loads' xids ($x1, $x2) are in pg_xact segment 0000");
$node->safe_psql('postgres', 'VACUUM t');

# Aborted merges whose directory entries the compaction removed (column
# README section 4.7, "Aborted versions"): one into the open block of m
# (100 rows), appending 400 rows, so that its own DELETE makes a
# delete-map page past the open block's rows holding only its rows
# (xmin = the merge), and one into a new block with its own UPDATE.  The
# first VACUUMs run without index cleanup: the entries of those rows are
# not removed, so the versions stay (R3b); a VACUUM with index cleanup
# removes the entries, then the versions.  Had the versions gone with
# their entries left, nothing would remove the entries, relfrozenxid
# would pass the merges' xids, and after the truncation check_table (and
# VACUUM, had the hint bits been lost) would ask pg_xact about them.
my $q_retired = q{SELECT d.entries - d.free_entries -
	(SELECT count(*) FROM (SELECT DISTINCT block_id FROM quickstep.blocks('m')) b)
	FROM quickstep.column_directory('m') d};
$node->safe_psql('postgres', q{
	CREATE TABLE m (id int PRIMARY KEY, v int) USING quickstep_column
	  WITH (quickstep.rows_per_block = 1000);
	CREATE INDEX m_v ON m (v);
	INSERT INTO m SELECT g, g FROM generate_series(1, 100) g;
	SELECT quickstep.merge('m');
	INSERT INTO m SELECT g, g FROM generate_series(101, 500) g;
});
my $xm1 = $node->safe_psql('postgres', q{
	SET quickstep.debug_merge_hold = on;
	BEGIN;
	SELECT pg_current_xact_id();
	SELECT FROM quickstep.merge('m') AS n WHERE n < 0;
	DELETE FROM m WHERE id % 3 = 0;
	ROLLBACK;
});
# closes the open block (the next merge starts a new one)
$node->safe_psql('postgres', 'VACUUM (INDEX_CLEANUP off) m');
my $xm2 = $node->safe_psql('postgres', q{
	SET quickstep.debug_merge_hold = on;
	BEGIN;
	SELECT pg_current_xact_id();
	SELECT FROM quickstep.merge('m') AS n WHERE n < 0;
	UPDATE m SET v = -v WHERE id % 5 = 0;
	ROLLBACK;
});
ok($xm1 < 1048576 && $xm2 < 1048576, "the aborted merges' xids ($xm1, $xm2) are in pg_xact segment 0000");
$node->safe_psql('postgres', q{
	SELECT txid_current();
	SET quickstep.debug_dir_compact_min = 0;
	VACUUM (INDEX_CLEANUP off) m;
	VACUUM (INDEX_CLEANUP off) m;
});
is($node->safe_psql('postgres', $q_retired), '2',
	'VACUUM without index cleanup keeps both aborted merges\' entries');
is($node->safe_psql('postgres', q{SELECT quickstep.check_table('m') > 0}), 't',
	'check_table (every delete-map entry left is reachable)');
$node->safe_psql('postgres', q{
	SET quickstep.debug_dir_compact_min = 0;
	VACUUM m;
});
is($node->safe_psql('postgres', $q_retired), '0',
	'VACUUM removes their delete-map entries and then their entries');

my $q_blocks = q{SELECT string_agg(state || ':' || rows, ' ' ORDER BY block_id)
	FROM quickstep.blocks('t') WHERE column_name = 'v'};
is($node->safe_psql('postgres', $q_blocks), 'sealed:2000', 'blocks() before the truncation');

# jump three segments ahead (pg_resetwal wants the new xid's segment to
# exist), then freeze every database so that pg_xact is truncated
my $next = $node->safe_psql('postgres', 'SELECT pg_current_xact_id()');
my $seg = int($next / 1048576) + 3;
$node->stop;
command_ok([ 'pg_resetwal', '-x', $seg * 1048576, $node->data_dir ],
	'pg_resetwal -x');
my $file = sprintf('%s/pg_xact/%04X', $node->data_dir, $seg);
open my $fh, '>:raw', $file or die "open $file: $!";
print $fh "\0" x (32 * 8192);
close $fh;
$node->start;
$node->safe_psql('postgres', 'ALTER DATABASE template0 ALLOW_CONNECTIONS true');
$node->safe_psql($_, 'VACUUM FREEZE') for qw(template0 template1 postgres);
ok(!-e $node->data_dir . '/pg_xact/0000', 'pg_xact segment 0000 is gone');

# everything that reads the directory
is($node->safe_psql('postgres', $q_blocks), 'sealed:2000', 'blocks() after the truncation');
is($node->safe_psql('postgres', q{SELECT main_rows FROM quickstep.column_stats
	WHERE relid = 't'::regclass}), '2000', 'column_stats');
is($node->safe_psql('postgres', q{SELECT count(*), sum(id) FROM t}), '2000|2001000',
	'sequential scan');
is($node->safe_psql('postgres', q{SET enable_seqscan = off; SET enable_bitmapscan = off;
	SELECT count(*), sum(v) FROM t WHERE id BETWEEN 1 AND 6000}), '2000|2001000',
	'index scan (the aborted loads\' entries are dead)');
ok($node->safe_psql('postgres', q{SELECT quickstep.check_table('t') > 0}) eq 't',
	'check_table');
is($node->safe_psql('postgres', q{SELECT quickstep.check_table('m') > 0}), 't',
	'check_table of m (the aborted merges\' xids are gone from pg_xact)');
$node->safe_psql('postgres', 'VACUUM m');
is($node->safe_psql('postgres', q{SELECT count(*), sum(v) FROM m}), '500|125250',
	'm after VACUUM');
is($node->safe_psql('postgres', q{SET enable_seqscan = off; SET enable_bitmapscan = off;
	SELECT count(*), sum(id) FROM m WHERE v BETWEEN -1000 AND 1000}), '500|125250',
	'm by index');
is($node->safe_psql('postgres', q{SELECT quickstep.merge('m')}), '400', 'm merges its delta');
is($node->safe_psql('postgres', q{SELECT quickstep.check_table('m') > 0}), 't',
	'check_table of m after the merge');
$node->safe_psql('postgres', 'VACUUM t');
$node->safe_psql('postgres', q{INSERT INTO t SELECT g, g FROM generate_series(6001, 6100) g});
is($node->safe_psql('postgres', q{SELECT quickstep.merge('t')}), '100', 'merge');
is($node->safe_psql('postgres', q{SELECT quickstep.seal('t')}), '1', 'seal');
is($node->safe_psql('postgres', $q_blocks), 'sealed:2000 sealed:100', 'blocks() after merge and seal');
is($node->safe_psql('postgres', q{SELECT count(*), sum(id) FROM t}), '2100|2606050',
	'the rows after merge and seal');

$node->stop;
done_testing();
