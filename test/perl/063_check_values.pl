# quickstep.check_table() decodes every stored value of every record, on
# every row layout: a TOAST pointer into another relation, a TOAST pointer
# with an impossible size, a compressed value naming no compression method,
# a value whose length runs past its record: each raises data_corrupted
# (XX001) naming block, record and attribute, instead of a reader tripping
# over it later ("could not open relation with OID ...", "compressed pglz
# data is corrupt").  Patched pages fail their data checksum (PG 18's
# initdb enables checksums): check_fails reads with ignore_checksum_failure.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use QsTest;

my $node = qs_new_node('check_values');
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION quickstep_am');

# patch(FILE, FROM, TO): replace the only occurrence of byte string FROM in
# the relation file of the stopped node by TO (same length).
sub patch
{
	my ($file, $from, $to) = @_;
	$node->stop;
	my $img = PostgreSQL::Test::Utils::slurp_file($file);
	my $at = index($img, $from);
	die "pattern not found in $file" if $at < 0;
	die "pattern found twice in $file" if index($img, $from, $at + 1) >= 0;
	open my $fh, '+<:raw', $file or die "open $file: $!";
	seek($fh, $at, 0) or die;
	print $fh $to;
	close $fh;
	$node->start;
}

sub check_fails
{
	my ($t, $what, $detail) = @_;
	my ($ret, $out, $err) = $node->psql('postgres',
		qq{SET ignore_checksum_failure = on; SET client_min_messages = error; \\set VERBOSITY verbose
		   SELECT quickstep.check_table('$t')});
	isnt($ret, 0, "$t, $what: check_table fails");
	like($err, qr/XX001: quickstep table "$t" is corrupt/, "$t, $what: with data_corrupted");
	like($err, $detail, "$t, $what: naming the record and what is wrong");
}

for my $am (qw(quickstep_nsm quickstep_pax quickstep_hpl))
{
	(my $t = $am) =~ s/^quickstep_/cv_/;
	# One record per table: an out-of-line value (incompressible, so its
	# pointer is plain), a compressed inline one, and a 1-byte-header one
	# whose text is a marker to find.
	$node->safe_psql('postgres', qq{
		CREATE TABLE $t (id int, ext text, cmp text, s text) USING $am;
		ALTER TABLE $t ALTER ext SET STORAGE EXTERNAL;
		INSERT INTO $t SELECT 1, string_agg(md5(k::text), ''), repeat('abc', 1000), 'MARKER$t'
		  FROM generate_series(1, 200) k;
		CHECKPOINT;
	});
	is($node->safe_psql('postgres', "SELECT quickstep.check_table('$t')"), '1', "$t: intact table is clean");
	my $file = $node->data_dir . '/' . $node->safe_psql('postgres', "SELECT pg_relation_filepath('$t')");
	my $toastrel = $node->safe_psql('postgres', "SELECT reltoastrelid::int FROM pg_class WHERE relname = '$t'");
	my $raw = $node->safe_psql('postgres', "SELECT octet_length(ext) + 4 FROM $t");

	# The TOAST pointer: va_rawsize, va_extinfo, va_valueid, va_toastrelid.
	my $rel = pack('V', $toastrel);
	patch($file, $rel, pack('V', $toastrel + 777));
	check_fails($t, 'TOAST pointer into another relation',
		qr/record 1, attribute 2: a TOAST pointer points outside the table's TOAST relation/);
	patch($file, pack('V', $toastrel + 777), $rel);
	is($node->safe_psql('postgres', "SELECT quickstep.check_table('$t')"), '1', "$t: clean again after repair");

	patch($file, pack('V', $raw) . pack('V', $raw - 4), pack('V', 3) . pack('V', $raw - 4));
	# PAX and HPL already refuse the value in their own page check (with the
	# area it lies in); NSM pages reach the engine's value decoding.
	check_fails($t, 'TOAST pointer with an impossible raw size', $am eq 'quickstep_nsm'
		? qr/attribute 2: a TOAST pointer has an impossible raw size/
		: qr/attribute 2.*(TOAST pointer with bad sizes|malformed TOAST pointer)/);
	patch($file, pack('V', 3) . pack('V', $raw - 4), pack('V', $raw) . pack('V', $raw - 4));

	# The compressed inline value: va_tcinfo holds the raw size (3000) in
	# its low 30 bits and the method in the top two; method 3 is none.
	patch($file, pack('V', 3000), pack('V', 3000 | (3 << 30)));
	check_fails($t, 'compressed value with an unknown method', $am eq 'quickstep_nsm'
		? qr/attribute 3: a compressed value names an unknown compression method/
		: qr/attribute 3.*compressed (with a bad method|value with an unknown compression method)/);
	patch($file, pack('V', 3000 | (3 << 30)), pack('V', 3000));

	# The short value: its 1-byte header says 127 bytes.
	my $mark = "MARKER$t";
	my $hdr = chr(((length($mark) + 1) << 1) | 1);
	patch($file, $hdr . $mark, chr((127 << 1) | 1) . $mark);
	# (PAX and HPL see it already in the page's structure: the value
	# overruns its minipage or variable-size area.)
	check_fails($t, 'short value running past its record',
		qr/attribute 4.*(a short value runs past the end of the record|overruns|lies outside|whose length does not fit)/);
	patch($file, chr((127 << 1) | 1) . $mark, $hdr . $mark);
	is($node->safe_psql('postgres', "SELECT id, md5(ext), length(cmp), s FROM $t"),
		$node->safe_psql('postgres', "SELECT 1, md5(string_agg(md5(k::text), '')), 3000, 'MARKER$t' FROM generate_series(1, 200) k"),
		"$t: every value reads back after the repairs");
}
$node->stop;
done_testing();
