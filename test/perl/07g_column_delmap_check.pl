# quickstep.check_table() reports a delete-map entry past the rows of every
# live version of its block whose inserter did not abort (review of r3b,
# helper-169 F6).  Only an aborted writer leaves entries there: a merge into
# an open block extends the straddling delete-map page with its rows
# (xmin = the merge) before it lists its version.  A committed entry there
# is a row no version has: readers never see it and VACUUM never removes
# it.  Since 6321996 VACUUM's second pass, and so the reachability check,
# reach such a page through the live version's root whatever its rows,
# and the check no longer said anything about it.  The state is made by
# patching the commit hint into one of an aborted merge's entries.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use QsTest;

my $node = qs_new_node('delmap_check');
$node->append_conf('postgresql.conf', "autovacuum = off\nquickstep.merge_workers = 0\n");
$node->start;

# 100 rows merged into an open block, row id 1 deleted (its virtual page gets
# a delete-map page of 100 entries), 50 more rows in the delta
$node->safe_psql('postgres', q{
	CREATE EXTENSION quickstep_am;
	CREATE TABLE t (id int, v int) USING quickstep_column
	  WITH (quickstep.rows_per_block = 1000);
	INSERT INTO t SELECT g, g FROM generate_series(1, 100) g;
});
is($node->safe_psql('postgres', q{SELECT quickstep.merge('t')}), '100', 'first merge moves 100 rows');
$node->safe_psql('postgres', q{
	DELETE FROM t WHERE id = 1;
	INSERT INTO t SELECT g, g FROM generate_series(101, 150) g;
});

# a merge that rolls back: it extended the page with rows 100..149, xmin = M
my $m = $node->safe_psql('postgres', q{
	BEGIN;
	SELECT txid_current();
	SELECT quickstep.merge('t') \g /dev/null
	ROLLBACK;
});
like($m, qr/^\d+$/, "the aborted merge's xid");
my $ctid = $node->safe_psql('postgres', q{SELECT ctid FROM t WHERE id = 2});
my ($vblock) = $ctid =~ /^\((\d+),\d+\)$/;
ok($vblock >= 0x80000000, "row 2 is a main row ($ctid)");
is($node->safe_psql('postgres', q{SELECT count(*), quickstep.check_table('t') IS NOT NULL FROM t}),
	'149|t', 'before: the table checks clean');

# row 120's entry: xmin, xmax, cid, then t_ctid = (its virtual block, 121)
my $file = $node->data_dir . '/' . $node->safe_psql('postgres', q{SELECT pg_relation_filepath('t')});
$node->stop;
my $img = PostgreSQL::Test::Utils::slurp_file($file);
my $xmin = quotemeta(pack('V', $m));
my $self = quotemeta(pack('vvv', $vblock >> 16, $vblock & 0xffff, 121));
my @at;
push @at, $-[0] while $img =~ /$xmin.{8}$self/gs;
is(scalar @at, 1, "the aborted merge's entry of row 120 is found once");
my $im = unpack('v', substr($img, $at[0] + 20, 2));
# HEAP_XMIN_COMMITTED on, HEAP_XMIN_INVALID off: M taken for committed
patch_file($node, $file, $at[0] + 20, pack('v', ($im & ~0x0200) | 0x0100));

# VACUUM retires M's version and removes its other entries; row 120's stays
my ($ret, $out, $err) = $node->psql('postgres',
	q{SET ignore_checksum_failure = on; SELECT txid_current(); VACUUM t});
is($ret, 0, 'VACUUM runs');
($ret, $out, $err) = $node->psql('postgres',
	qq{SET ignore_checksum_failure = on; SET client_min_messages = error; \\set VERBOSITY verbose
	   SELECT quickstep.check_table('t')});
isnt($ret, 0, 'check_table fails');
like($err, qr/XX001: quickstep table "t" is corrupt/, 'with data_corrupted');
like($err, qr/delete-map page \d+ of block \d+ holds an entry whose inserter did not abort past the rows of every live version/,
	'naming the page and what is wrong');

done_testing();
