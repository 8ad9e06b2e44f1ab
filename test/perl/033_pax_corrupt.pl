# quickstep.check_table() reports damaged PAX pages with
# ERRCODE_DATA_CORRUPTED (XX001), naming block, item and attribute: an
# area using more than its size, a value offset past the used bytes, two
# values overlapping, a varlena length overrunning its area, a TOAST
# pointer with a bad tag or bad sizes, a compressed value with a bad
# method or raw size, an offset into the middle of a value (issue 11).
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use QsTest;

my $node = qs_new_node('pax_corrupt');
$node->start;
# One page, records in slots 1..6: v is a 4-byte value (slot 1), a short
# one (2), a TOAST pointer (3), a compressed value (4), short ones (5, 6).
$node->safe_psql('postgres', q{
	CREATE EXTENSION quickstep_am;
	CREATE TABLE t (id int, v text, w int) USING quickstep_pax;
	ALTER TABLE t SET (autovacuum_enabled = off);
	INSERT INTO t VALUES
	  (1, repeat('x', 196), 1),
	  (2, 'abc', 2),
	  (3, (SELECT string_agg(md5(g::text), '') FROM generate_series(1, 100) g), 3),
	  (4, repeat('compressible', 400), 4),
	  (5, 'de', 5),
	  (6, 'f', 6);
	CHECKPOINT;
});
is($node->safe_psql('postgres', q{SELECT quickstep.check_table('t')}),
	'6', 'the intact table is clean');
my $file = $node->data_dir . '/' . $node->safe_psql('postgres', q{SELECT pg_relation_filepath('t')});

sub patch { patch_file($node, $file, @_); }

sub peek { return peek_file($file, @_); }

# The directory (pax.c): the page header (24 bytes), then magic, version,
# natts, capacity, nslots, hdrs (uint16 each), nredist (uint32), then per
# attribute 12 bytes: attlen, attalign, attbyval, start, vals, dsize, dused.
my $cap = unpack('v', peek(24 + 6, 2));
my $mini = 24 + 16 + 12;				# attribute 2, v
my ($vals, $dsize, $dused) = unpack('v3', peek($mini + 6, 6));
my $data = ($vals + 2 * $cap + 7) & ~7;	# MAXALIGN
my @off = unpack('v6', peek($vals, 12));	# offsets of slots 1..6
is(unpack('C', peek($data + $off[2], 1)), 1, 'slot 3 holds a TOAST pointer');
is(unpack('V', peek($data + $off[3], 4)) & 3, 2, 'slot 4 holds a compressed value');

sub check_fails
{
	my ($what, $detail) = @_;
	my ($ret, $out, $err) = $node->psql('postgres',
		q{SET ignore_checksum_failure = on; SET client_min_messages = error;
		  \set VERBOSITY verbose
		  SELECT quickstep.check_table('t')});
	isnt($ret, 0, "$what: check_table fails");
	like($err, qr/XX001: quickstep table "t" is corrupt/, "$what: with data_corrupted");
	like($err, $detail, "$what: and says what is wrong");
}

# damage(what, offset, bytes, detail): patch, expect the detail, restore
sub damage
{
	my ($what, $at, $bytes, $detail) = @_;
	my $saved = peek($at, length($bytes));
	patch($at, $bytes);
	check_fails($what, $detail);
	patch($at, $saved);
}

# w (attribute 3) stored otherwise than the table defines it (not by
# value): only records of a transaction that rolled back may have such an
# attribute (a rolled-back ADD COLUMN whose number was reused), these
# committed records may not
damage('a minipage the table defines otherwise', 24 + 16 + 2 * 12 + 3, pack('C', 0),
	qr/block 0, item 1: record of a transaction that did not roll back has attribute 3, stored as width 4 align 'i' on the page, width 4 align 'i' by value in the table/);
damage('area over its size', $mini + 10, pack('v', $dsize + 1),
	qr/block 0: minipage 2 uses \d+ bytes of $dsize/);
damage('offset past the used bytes', $vals + 2 * 4, pack('v', $dused),
	qr/block 0, item 5, attribute 2: value at $dused outside the $dused bytes used/);
damage('two values overlap', $vals + 2 * 5, pack('v', $off[4]),
	qr/block 0, items (5 and 6|6 and 5), attribute 2: values at \d+ and \d+ overlap/);
damage('varlena overruns its area', $data + $off[0], pack('V', 4000 << 2),
	qr/block 0, item 1, attribute 2: value at \d+ of the $dused bytes used has a bad header/);
damage('TOAST pointer tag', $data + $off[2] + 1, pack('C', 7),
	qr/block 0, item 3, attribute 2: .* has a bad header \(length, TOAST tag\)/);
damage('TOAST pointer sizes', $data + $off[2] + 2, pack('V', 0),
	qr/block 0, item 3, attribute 2: .* is a TOAST pointer with bad sizes or ids/);
damage('compressed method', $data + $off[3] + 7, pack('C', 0xC0),
	qr/block 0, item 4, attribute 2: .* is compressed with a bad method or raw size/);
damage('compressed raw size', $data + $off[3] + 4, pack('V', 1),
	qr/block 0, item 4, attribute 2: .* is compressed with a bad method or raw size/);
# whatever the bytes there read as, misaligned, bad or overlapping
damage('offset into the middle of a value', $vals + 2 * 3, pack('v', $off[3] + 1),
	qr/block 0, items? (\d+ and )?4(,| and \d+,) attribute 2: /);

is($node->safe_psql('postgres', q{SET ignore_checksum_failure = on; SELECT quickstep.check_table('t')}),
	'6', 'clean again once restored');
is($node->safe_psql('postgres', q{SET ignore_checksum_failure = on;
	SELECT string_agg(id || ':' || length(v), ',' ORDER BY id) FROM t}),
	'1:196,2:3,3:3200,4:4800,5:2,6:1', 'and reads back');
$node->stop;
done_testing();
