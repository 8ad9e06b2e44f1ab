# The seal moves runs down (src/column/README.md section 4.7, "The seal
# moves runs down"; issue 12, W7 "via delta"): rows that arrive through the
# delta, merged and vacuumed batch by batch, leave the delta's emptied
# pages below the blocks' runs; quickstep.seal() writes the blocks whose
# runs have enough empty pages below them again, there, and the VACUUM
# after it gives the old runs back and truncates the file's emptied end.
# A crash in the middle of a moved run's write (quickstep.debug_vacuum_crash
# = 4: a PANIC after its first page was converted, the WAL flushed; the
# move listed its window as a freed range first, so the VACUUM after the
# restart gives the converted page back), an
# immediate stop right after the VACUUM that truncated, and a streaming
# standby replaying it all each leave a table whose rows equal a heap
# twin's by sequential and index scans, every row at its TID, and that
# check_table finds clean.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use File::Copy;
use FindBin;
use lib $FindBin::RealBin;
use QsTest;

my $node = qs_new_node('sealmove', allows_streaming => 1);
$node->append_conf('postgresql.conf',
	"autovacuum = off\nrestart_after_crash = on\nquickstep.merge_workers = 0\n");
$node->start;
$node->safe_psql('postgres', q{
	CREATE EXTENSION quickstep_am;
	CREATE EXTENSION pageinspect;
	CREATE EXTENSION pg_freespacemap;
	CREATE TABLE t (id int NOT NULL, v int, k text) USING quickstep_column
	  WITH (quickstep.rows_per_block = 10000);
	CREATE INDEX t_id ON t (id);
	CREATE INDEX t_v ON t (v);
	CREATE TABLE h (id int NOT NULL, v int, k text);
	CREATE TABLE loc (id int, old tid);
});
$node->backup('bk');
my $standby = PostgreSQL::Test::Cluster->new('sealmove_standby');
$standby->init_from_backup($node, 'bk', has_streaming => 1);
$standby->start;

sub pages
{
	return $node->safe_psql('postgres', q{SELECT pg_relation_size('t') / 8192});
}

sub blocks
{
	my ($nd) = @_;
	return $nd->safe_psql('postgres', q{
		SELECT count(DISTINCT block_id) || ':' || count(DISTINCT block_id) FILTER (WHERE state = 'sealed')
		  FROM quickstep.blocks('t')});
}

# block-run pages (special space: the run page magic "QSCP"), named or not
my $q_runpages = q{SELECT count(*) FROM generate_series(0, pg_relation_size('t') / 8192 - 1) b
	WHERE substr(get_raw_page('t', b::int), 8177, 4) = '\x51534350'::bytea};

# run pages the free space map offers as empty (stale: the map is not
# WAL-logged)
my $q_stale = q{SELECT count(*) FROM pg_freespace('t') f
	WHERE f.avail >= 4096 AND substr(get_raw_page('t', f.blkno::int), 8177, 4) = '\x51534350'::bytea};

my $q_tids = q{SELECT md5(string_agg(id || ':' || v || ':' || k || ':' || ctid, ',' ORDER BY id)) FROM t};

# the rows of h, each at the TID it had before the seal, and check_table
sub same
{
	my ($nd, $what) = @_;
	qs_column_same_rows($node, $nd, $what, 35000, 100);
	is($nd->safe_psql('postgres', q{
		SELECT count(*) FROM t JOIN loc USING (id) WHERE t.ctid <> loc.old}),
		'0', "$what: every row at its TID");
	is($nd->safe_psql('postgres', q{SELECT md5(string_agg(k, ',' ORDER BY id)) FROM t}),
		$node->safe_psql('postgres', q{SELECT md5(string_agg(k, ',' ORDER BY id)) FROM h}),
		"$what: the text column");
}

# five batches of 7,000 rows through the delta, each merged and vacuumed
for my $r (0 .. 4)
{
	my ($lo, $hi) = ($r * 7000 + 1, ($r + 1) * 7000);
	$node->safe_psql('postgres', qq{
		SET quickstep.column_delta_rows = 100000;
		INSERT INTO t SELECT g, g % 101, md5(g::text) FROM generate_series($lo, $hi) g;
		INSERT INTO h SELECT g, g % 101, md5(g::text) FROM generate_series($lo, $hi) g;
	});
	$node->safe_psql('postgres', q{SELECT quickstep.merge('t')});
	$node->safe_psql('postgres', 'VACUUM t');
}
$node->safe_psql('postgres', q{INSERT INTO loc SELECT id, ctid FROM t});
my $merged = pages();
is(blocks($node), '4:3', 'four blocks, the last one open');

# 1. a crash in the first moved run's write: the seal never committed, the
# converted page is a run page no directory entry names, in a freed range
# (the move listed its window first), which the next VACUUM gives back
my $runs = $node->safe_psql('postgres', $q_runpages);
my $logpos = -s $node->logfile;
my ($ret) = $node->psql('postgres', q{
	SET quickstep.debug_vacuum_crash = 4;
	SELECT quickstep.seal('t');
});
isnt($ret, 0, 'the seal stopped after converting the first page of a moved run');
qs_wait_reinit($node, $logpos);
ok($node->poll_query_until('postgres', 'SELECT 1', '1'), 'the server is back after the crash');
same($node, 'after a crash in a moved run');
is(blocks($node), '4:3', 'after the crash: the open block is still open');
is(pages(), $merged, 'after the crash: the file is as it was');

is($node->safe_psql('postgres', $q_runpages), $runs + 1,
	'after the crash: one run page more, the converted one');
cmp_ok($node->safe_psql('postgres', q{SELECT free_entries FROM quickstep.column_directory('t')}),
	'>=', 1, 'after the crash: the window is listed as a freed range');

# the free space map is not WAL-logged: a VACUUM records the emptied
# pages again (they may have been lost with the crash); its sweep gives
# the converted page back
$node->safe_psql('postgres', 'VACUUM t');
is($node->safe_psql('postgres', $q_runpages), $runs,
	'the VACUUM after the crash gave the converted page back');

# 2. the seal and the VACUUM after it: the runs moved down, the old ones
# given back and the end truncated.  First a copy of the free space map
# as it is now, recording the windows empty (a clean stop writes it): put
# back after step 3, it is the stale map a crash or a promoted standby can
# leave (the map is not WAL-logged).
my $fsm = $node->data_dir . '/'
  . $node->safe_psql('postgres', q{SELECT pg_relation_filepath('t')}) . '_fsm';
$node->stop('fast');
copy($fsm, "$fsm.saved") or die "copy $fsm: $!";
$node->start;
is($node->safe_psql('postgres', q{SELECT quickstep.seal('t')}), '1', 'the seal sealed one block');
$node->safe_psql('postgres', 'VACUUM t');
my $sealed = pages();
cmp_ok($sealed, '<', $merged * 3 / 4, "the file shrank by more than a quarter ($merged -> $sealed pages)");
same($node, 'after the seal and the VACUUM');
is(blocks($node), '4:4', 'four sealed blocks');
$node->wait_for_catchup($standby, 'replay', $node->lsn('insert'));
same($standby, 'the standby after the seal and the VACUUM');
is($standby->safe_psql('postgres', $q_tids), $node->safe_psql('postgres', $q_tids),
	'the standby: the same rows at the same TIDs');
is($standby->safe_psql('postgres', q{SELECT pg_relation_size('t') / 8192}), $sealed,
	'the standby replayed the truncation');

# 3. an immediate stop right after the truncation: recovery replays it
$node->stop('immediate');
$node->start;
same($node, 'after an immediate stop following the truncation');
is(pages(), $sealed, 'after the restart: the truncated size');

# the map from before the seal put back: the moved runs' pages are
# recorded empty.  A seal finds them taken and records what they have
# free (0), instead of offering them to every seal for good
$node->stop('fast');
copy("$fsm.saved", $fsm) or die "copy $fsm.saved: $!";
$node->start;
my $stale = $node->safe_psql('postgres', $q_stale);
cmp_ok($stale, '>', 0, "the stale map offers $stale run pages as empty");
$node->safe_psql('postgres', q{SELECT quickstep.seal('t')});
my $after = $node->safe_psql('postgres', $q_stale);
cmp_ok($after, '<', $stale,
	"a seal corrected stale free space map entries of run pages ($stale -> $after)");
same($node, 'after a seal over a stale free space map');

# 4. more rows through the delta after it: the table works as before
$node->safe_psql('postgres', q{
	SET quickstep.column_delta_rows = 100000;
	INSERT INTO h SELECT g, g % 101, md5(g::text) FROM generate_series(35001, 42000) g;
	INSERT INTO t SELECT g, g % 101, md5(g::text) FROM generate_series(35001, 42000) g;
});
$node->safe_psql('postgres', q{SELECT quickstep.merge('t')});
$node->safe_psql('postgres', 'VACUUM t');
qs_column_same_rows($node, $node, 'after a later batch', 42000, 100);
$node->wait_for_catchup($standby, 'replay', $node->lsn('insert'));
qs_column_same_rows($node, $standby, 'the standby after a later batch', 42000, 100);

$standby->stop;
$node->stop;
done_testing();
