# quickstep.check_table() on damaged HPL pages (issue 11): every value
# outside its area, overlapping another or sharing its start, every varlena
# that does not decode (header length, TOAST pointer, compressed raw size and
# method), every null bit chunk out of range raises ERRCODE_DATA_CORRUPTED
# (XX001) naming block, item and attribute; a page of an older HPL format is
# refused with feature_not_supported and a hint, never misread.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use QsTest;

my $node = qs_new_node('hpl_corrupt');
$node->start;
$node->safe_psql('postgres', q{
	CREATE EXTENSION quickstep_am;
	CREATE TABLE t (id int NOT NULL, v text, n int) USING quickstep_hpl
	  WITH (autovacuum_enabled = off);
	INSERT INTO t VALUES (1, repeat('a', 200), 1);
	INSERT INTO t VALUES (2, 'bb', 2);
	INSERT INTO t VALUES (3, NULL, NULL);
	INSERT INTO t VALUES (4, repeat('c', 4000), 4);
	INSERT INTO t VALUES (5, (SELECT string_agg(md5(g::text), '') FROM generate_series(1, 400) g), 5);
	CHECKPOINT;
});
is($node->safe_psql('postgres', q{SELECT quickstep.check_table('t')}), '5',
	'the intact table is clean');
my $file = $node->data_dir . '/' . $node->safe_psql('postgres', q{SELECT pg_relation_filepath('t')});

sub peek { return peek_file($file, @_); }

# patch(offset in block 0, bytes): overwrite bytes of the stopped node
sub patch { patch_file($node, $file, @_); }

sub u16 { return unpack('v', peek($_[0], 2)); }

sub query_fails
{
	my ($what, $sql, $code, $detail) = @_;
	my ($ret, $out, $err) = $node->psql('postgres',
		qq{SET ignore_checksum_failure = on; SET client_min_messages = error;
		  \\set VERBOSITY verbose
		  $sql});
	isnt($ret, 0, "$what: fails");
	like($err, $code, "$what: with its error code");
	like($err, $detail, "$what: and says what is wrong");
}

sub check_fails
{
	my ($what, $detail) = @_;
	query_fails($what, q{SELECT quickstep.check_table('t')},
		qr/XX001: quickstep table "t" is corrupt/, $detail);
}

# The page: header, then the directory at 24 (magic, version, flags, natts,
# segstart, field counts, nrecs, minnatts, 4 bytes per attribute, then the
# null chunk offsets: of all three attributes, since id's costs no line).
# Fields of the first records lie in the first unit of each field, in
# order: used, live, xmin, xmax, cid, ctid block, ctid offset, infomask,
# infomask2, length, id, v's offset, v's prefix, n.
my $segstart = u16(24 + 6);
is(u16(24 + 16), 5, 'five slots');
my $voff_field = $segstart + 64 * 11;
my @voff = map { u16($voff_field + 2 * $_) } 0 .. 4;
my $nulldir = 24 + 20 + 3 * 4;
my $nullv = u16($nulldir + 2);
my $upper = u16(14);
ok($nullv >= $upper && $nullv < 8192, "v has null bits in the area ($nullv)");

sub restore_ok
{
	my ($what) = @_;
	is($node->safe_psql('postgres', q{SET ignore_checksum_failure = on; SET client_min_messages = error;
		SELECT quickstep.check_table('t')}), '5', "$what: clean again once restored");
}

sub corrupt
{
	my ($what, $off, $bytes, $detail) = @_;
	my $saved = peek($off, length($bytes));
	patch($off, $bytes);
	check_fails($what, $detail);
	patch($off, $saved);
	restore_ok($what);
}

# offsets
corrupt('offset into the segment', $voff_field, pack('v', 100),
	qr/block 0, item 1: value of attribute 2 at 100 starts outside the variable-size area/);
corrupt('offset past the page', $voff_field + 2, pack('v', 9000),
	qr/block 0, item 2: value of attribute 2 at 9000 starts outside/);
corrupt('two values at one place', $voff_field + 2, pack('v', $voff[0]),
	qr/block 0, item 2: value of attribute 2 at $voff[0] starts where another value starts \(item 1, attribute 2\)/);
corrupt('a value inside another', $voff_field + 2, pack('v', $voff[0] + 9),
	qr/block 0, item (1|2): value of attribute 2 at \d+ overlaps another value/);

# varlena headers
corrupt('a length past the area', $voff[0], pack('V', 8000 << 2),
	qr/block 0, item 1: value of attribute 2 at $voff[0] has a varlena header whose length does not fit/);
corrupt('a short header longer than its value', $voff[1], pack('C', 0x7f << 1 | 1),
	qr/block 0, item 2: value of attribute 2 at $voff[1] overlaps another value \(item 1, attribute 2\)/);
my $hdr3 = unpack('V', peek($voff[3], 4));
ok(($hdr3 & 3) == 2, 'item 4 is stored compressed inline');
corrupt('a compressed raw size of 0', $voff[3] + 4, pack('V', 0),
	qr/block 0, item 4: value of attribute 2 at $voff[3] is a compressed value with an insane raw size/);
corrupt('an unknown compression method', $voff[3] + 4,
	pack('V', (unpack('V', peek($voff[3] + 4, 4)) & 0x3fffffff) | (3 << 30)),
	qr/item 4: value of attribute 2 at $voff[3] is a compressed value with an unknown compression method/);
is(unpack('C', peek($voff[4], 1)), 1, 'item 5 is a TOAST pointer');
corrupt('a TOAST pointer of another kind', $voff[4] + 1, pack('C', 1),
	qr/item 5: value of attribute 2 at $voff[4] is an external pointer of a kind not stored on disk/);
corrupt('a TOAST pointer without a value id', $voff[4] + 2 + 8, pack('V', 0),
	qr/item 5: value of attribute 2 at $voff[4] is a malformed TOAST pointer/);
corrupt('a TOAST pointer longer than its value', $voff[4] + 2, pack('V', 3),
	qr/item 5: value of attribute 2 at $voff[4] is a malformed TOAST pointer/);

# null bits
corrupt('null bits past the page', $nulldir + 2, pack('v', 8190),
	qr/block 0: null bits of attribute 2 at 8190 lies outside the variable-size area/);
my $nulln = u16($nulldir + 4);
corrupt('two attributes\' null bits at one place', $nulldir + 2, pack('v', $nulln),
	qr/block 0: null bits of attribute 3 at $nulln starts where another value starts \(the null bits of attribute 2\)/);

# n (attribute 3) stored otherwise than the table defines it (byte
# aligned): only records of a transaction that rolled back may have such an
# attribute (a rolled-back ADD COLUMN whose number was reused), these
# committed records may not
corrupt('an attribute the table defines otherwise', 24 + 20 + 2 * 4 + 2, 'c',
	qr/block 0, item 1: record of a transaction that did not roll back has attribute 3, stored as length 4 align 'c' on the page, length 4 align 'i' by value in the table/);

# the page header (one the server's own page check lets through)
corrupt('a special space', 16, pack('v', 8184),
	qr/block 0: bad page header \(lower \d+, upper \d+, special 8184/);

# a slot count past what fits a page: every path that loops over slots or
# indexes the geometry by slot refuses it (hpl_nrecs), never reads past
# them; check_table names the block
my $nrecs_saved = peek(24 + 16, 2);
patch(24 + 16, pack('v', 65535));
check_fails('a slot count past the page', qr/block 0: 65535 slots \(at most 291\)/);
query_fails('a slot count past the page, a scan', q{SELECT count(v) FROM t},
	qr/XX001: HPL page with 65535 record slots, at most 291 fit a page/,
	qr/HINT:  Run quickstep.check_table\(\)/);
query_fails('a slot count past the page, an insert', q{INSERT INTO t VALUES (6, 'x', 6)},
	qr/XX001: HPL page with 65535 record slots/, qr/HINT:  Run quickstep.check_table/);
patch(24 + 16, $nrecs_saved);
restore_ok('slot count');

# an older format: refused, not misread, by queries and check_table alike
my $saved = peek(24 + 2, 1);
patch(24 + 2, pack('C', 1));
query_fails('a version-1 page, check_table', q{SELECT quickstep.check_table('t')},
	qr/0A000: HPL page of format version 1, this build of quickstep_am reads only version 2/,
	qr/HINT:  Dump the table with the quickstep_am build that wrote it/);
query_fails('a version-1 page, a scan', q{SELECT count(v) FROM t},
	qr/0A000: HPL page of format version 1/, qr/HINT:  Dump the table/);
patch(24 + 2, $saved);
restore_ok('version');

is($node->safe_psql('postgres', q{SET ignore_checksum_failure = on; SET client_min_messages = error;
	SELECT string_agg(id || ':' || coalesce(length(v), -1), ',' ORDER BY id) FROM t}),
	'1:200,2:2,3:-1,4:4000,5:12800', 'the rows read back');
$node->stop;
done_testing();
