# quickstep.check_index() reports damaged csbtree pages with
# ERRCODE_INDEX_CORRUPTED (XX002): a CSB+ directory that no longer matches
# its page's items, a broken right-link, and items out of order.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use QsTest;

my $node = qs_new_node('csb_corrupt');
$node->start;
$node->safe_psql('postgres', q{
	CREATE EXTENSION quickstep_am;
	CREATE TABLE t (k int);
	INSERT INTO t SELECT generate_series(1, 20000);
	CREATE INDEX t_k ON t USING csbtree (k);
	CHECKPOINT;
});
is($node->safe_psql('postgres', q{SELECT leaf_tuples FROM quickstep.check_index('t_k')}),
	'20000', 'the intact index is clean');
my $file = $node->data_dir . '/' . $node->safe_psql('postgres', q{SELECT pg_relation_filepath('t_k')});
my $special = 8192 - 384;

# patch(block, offset in page, bytes): overwrite bytes of the stopped node
sub patch { my ($blk, $off, $bytes) = @_; patch_file($node, $file, $blk * 8192 + $off, $bytes); }

sub peek { my ($blk, $off, $len) = @_; return peek_file($file, $blk * 8192 + $off, $len); }

sub check_fails
{
	my ($what, $detail) = @_;
	my ($ret, $out, $err) = $node->psql('postgres',
		q{SET ignore_checksum_failure = on; SET client_min_messages = error;
		  \set VERBOSITY verbose
		  SELECT * FROM quickstep.check_index('t_k')});
	isnt($ret, 0, "$what: check_index fails");
	like($err, qr/XX002: csbtree index "t_k" is corrupted/, "$what: with index_corrupted");
	like($err, $detail, "$what: and says what is wrong");
}

# 1. the first directory key of leaf block 1
my $saved = peek(1, $special + 64 + 4, 4);
patch(1, $special + 64 + 4, "\xff\xff\xff\x7f");
check_fails('directory', qr/directory does not match/);
patch(1, $special + 64 + 4, $saved);
is($node->safe_psql('postgres', q{SET ignore_checksum_failure = on; SELECT leaf_tuples FROM quickstep.check_index('t_k')}),
	'20000', 'clean again once restored');

# 2. the right-link of leaf block 1
$saved = peek(1, $special + 4, 4);
patch(1, $special + 4, pack('V', 0x00ffffff));
check_fails('right-link', qr/links to block 16777215|left-link/);
patch(1, $special + 4, $saved);

# 3. two items out of order: on a compact int4 leaf, entries are 11 bytes
# (TID, null flag, key) packed after the 24-byte page header; swap the
# entries at offsets 3 and 4 (offset 1 is the high key)
my $w = 11;
my $e3 = peek(1, 24 + 2 * $w, $w);
my $e4 = peek(1, 24 + 3 * $w, $w);
patch(1, 24 + 2 * $w, $e4 . $e3);
check_fails('order', qr/sorts before item/);

$node->stop;
done_testing();
