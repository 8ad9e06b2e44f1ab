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
$node->safe_psql('postgres', 'VACUUM t');
$node->safe_psql('postgres', q{INSERT INTO t SELECT g, g FROM generate_series(6001, 6100) g});
is($node->safe_psql('postgres', q{SELECT quickstep.merge('t')}), '100', 'merge');
is($node->safe_psql('postgres', q{SELECT quickstep.seal('t')}), '1', 'seal');
is($node->safe_psql('postgres', $q_blocks), 'sealed:2000 sealed:100', 'blocks() after merge and seal');
is($node->safe_psql('postgres', q{SELECT count(*), sum(id) FROM t}), '2100|2606050',
	'the rows after merge and seal');

$node->stop;
done_testing();
