# A row layout (quickstep_nsm, or $ENV{QS_AM} when another test file runs
# this one with "do"): crash recovery replays the WAL of every page change
# (committed rows all back, uncommitted ones gone, check_table clean), and a
# streaming standby replays it and answers queries.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use QsTest;

my $am = $ENV{QS_AM} // 'quickstep_nsm';
(my $tag = $am) =~ s/^quickstep_//;
note "layout: $am";

my $node = qs_new_node("${tag}_primary", allows_streaming => 1);
# no checkpoint may hide a replay bug: everything comes back from WAL
$node->append_conf('postgresql.conf', "checkpoint_timeout = 1h\nmax_wal_size = 1GB\nautovacuum = off");
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION quickstep_am');
$node->safe_psql('postgres', qq{
	CREATE TABLE c (id int PRIMARY KEY, v text) USING $am;
	CREATE TABLE big (id int, b text) USING $am;
	CREATE UNLOGGED TABLE u (id int) USING $am;
	CHECKPOINT;
	INSERT INTO c SELECT g, 'v' || g FROM generate_series(1, 20000) g;
	UPDATE c SET v = v || '-u' WHERE id % 3 = 0;
	DELETE FROM c WHERE id % 5 = 0;
	INSERT INTO big SELECT g, repeat(md5(g::text), 300) FROM generate_series(1, 50) g;
	INSERT INTO u SELECT generate_series(1, 100);
	CREATE TABLE w (id int, b text) USING $am;
	ALTER TABLE w ALTER COLUMN b SET STORAGE plain;
	INSERT INTO w SELECT g, CASE WHEN g % 10 = 0 THEN repeat(chr(65 + g % 26), 8000)
		ELSE 'small' || g END FROM generate_series(1, 300) g;
	UPDATE w SET b = repeat('u', 8000) WHERE id = 1;
	UPDATE w SET b = 'small again' WHERE id = 20;
	DELETE FROM w WHERE id = 10;
});
my $expect = $node->safe_psql('postgres',
	q{SELECT count(*), sum(id), md5(string_agg(v, ',' ORDER BY id)) FROM c});
my $wq = q{SELECT count(*), sum(length(b)), md5(string_agg(b, ',' ORDER BY id)) FROM w};
my $wexpect = $node->safe_psql('postgres', $wq);

# an uncommitted load in progress when the server dies
my $bg = $node->background_psql('postgres');
$bg->query_safe('BEGIN');
$bg->query_safe(q{INSERT INTO c SELECT g, 'uncommitted' FROM generate_series(100001, 130000) g});
$bg->query_safe(q{UPDATE c SET v = 'uncommitted' WHERE id < 1000});
crash_and_restart($node);
eval { $bg->quit; };

is($node->safe_psql('postgres',
		q{SELECT count(*), sum(id), md5(string_agg(v, ',' ORDER BY id)) FROM c}),
	$expect, 'after a crash every committed row is back, unchanged');
is($node->safe_psql('postgres', q{SELECT count(*) FROM c WHERE v = 'uncommitted' OR id > 100000}),
	'0', 'no uncommitted row or change is visible');
is($node->safe_psql('postgres', q{SELECT count(*), sum(length(b)) FROM big}),
	'50|480000', 'toasted values survive the crash');
is($node->safe_psql('postgres', $wq), $wexpect,
	'untoasted 8 kB rows (NSM pages in tables of other layouts) survive the crash');
is($node->safe_psql('postgres', q{SELECT quickstep.check_table('w')}), '299',
	'check_table is clean on the table with 8 kB rows');
is($node->safe_psql('postgres', q{SELECT count(*) FROM u}), '0',
	'an unlogged table is empty after a crash');
is($node->safe_psql('postgres', q{SELECT quickstep.check_table('c') >= count(*) FROM c}),
	't', 'check_table is clean after recovery');
is($node->safe_psql('postgres',
		q{SET enable_seqscan = off; SET enable_bitmapscan = off; SELECT count(*) FROM c WHERE id > 0}),
	(split /\|/, $expect)[0], 'the index agrees with the table after recovery');

# the table works after recovery: vacuum, more writes, another crash
$node->safe_psql('postgres', q{
	VACUUM c;
	INSERT INTO c SELECT g, 'after' FROM generate_series(200001, 201000) g;
	UPDATE c SET v = 'after2' WHERE id BETWEEN 200001 AND 200500;
});
crash_and_restart($node);
is($node->safe_psql('postgres', q{SELECT count(*) FILTER (WHERE v = 'after'), count(*) FILTER (WHERE v = 'after2') FROM c}),
	'500|500', 'writes after a VACUUM survive a second crash');
isnt($node->safe_psql('postgres', q{SELECT quickstep.check_table('c')}), '',
	'check_table passes after the second crash');

# streaming standby
$node->backup('b1');
my $standby = PostgreSQL::Test::Cluster->new("${tag}_standby");
$standby->init_from_backup($node, 'b1', has_streaming => 1);
$standby->append_conf('postgresql.conf',
	"max_standby_streaming_delay = 0\nhot_standby_feedback = off");
$standby->start;
$node->safe_psql('postgres', qq{
	INSERT INTO c SELECT g, 'stream' FROM generate_series(300001, 305000) g;
	UPDATE c SET v = 'stream-u' WHERE id BETWEEN 300001 AND 300100;
	DELETE FROM c WHERE id BETWEEN 300101 AND 300200;
	CREATE TABLE s (a int, b text) USING $am;
	INSERT INTO s SELECT g, md5(g::text) FROM generate_series(1, 1000) g;
	CREATE INDEX s_a ON s (a);
});
$node->wait_for_catchup($standby, 'replay');
my $q = q{SELECT count(*), sum(id), md5(string_agg(v, ',' ORDER BY id)) FROM c};
is($standby->safe_psql('postgres', $q), $node->safe_psql('postgres', $q),
	'the standby has replayed every change');
is($standby->safe_psql('postgres',
		q{SET enable_seqscan = off; SET enable_bitmapscan = off; SELECT b FROM s WHERE a = 777}),
	$node->safe_psql('postgres', q{SELECT md5('777')}),
	'the standby answers index scans on a table created after the backup');
my ($ret, $out, $err) = $standby->psql('postgres', q{INSERT INTO s VALUES (0, 'x')});
like($err, qr/read-only transaction/, 'the standby refuses writes');

# VACUUM on the primary removes rows a standby snapshot still sees: the
# standby query must be cancelled (recovery conflict), as with heap, not
# answer from a page the rows have vanished from.
my $sbg = $standby->background_psql('postgres', on_error_stop => 0);
$sbg->query_safe('BEGIN ISOLATION LEVEL REPEATABLE READ');
is($sbg->query_safe('SELECT count(*) FROM s'), '1000', 'a standby snapshot sees 1000 rows');
$node->safe_psql('postgres', 'DELETE FROM s WHERE a <= 500');
$node->safe_psql('postgres', 'VACUUM s');
$node->wait_for_catchup($standby, 'replay');
my ($sout, $sret) = eval { $sbg->query('SELECT count(*) FROM s') };
ok(!defined $sout || $sout ne '500',
	'the old standby snapshot never sees the vacuumed page as if the rows were never there');
eval { $sbg->quit; };
ok($standby->poll_query_until('postgres',
		q{SELECT confl_snapshot > 0 FROM pg_stat_database_conflicts WHERE datname = 'postgres'}),
	'the removal raised a snapshot recovery conflict on the standby');
is($standby->safe_psql('postgres', 'SELECT count(*) FROM s'), '500',
	'a new standby query sees the vacuumed table');

$standby->stop;

# a corrupt page: check_table reports data_corrupted (XX001), no crash
my $path = $node->safe_psql('postgres', q{SELECT pg_relation_filepath('s')});
my $blk = $node->safe_psql('postgres', q{SELECT max((ctid::text::point)[0])::int FROM s});
$node->stop;
my $file = $node->data_dir . '/' . $path;
open(my $fh, '+<', $file) or die "open $file: $!";
binmode $fh;
# garbage right after the page header of a block with records (NSM: the
# line pointers; other layouts: their page directory)
seek($fh, $blk * 8192 + 24, 0);
print $fh "\xff" x 16;
close $fh;
$node->start;
($ret, $out, $err) = $node->psql('postgres',
	q{\set VERBOSITY verbose
SELECT quickstep.check_table('s')});
like($err, qr/XX001/, 'check_table raises data_corrupted on a corrupt page');
like($err, qr/corrupt|invalid page/, 'and says what is wrong');
is($node->safe_psql('postgres', 'SELECT 1'), '1', 'the server is still up');
$node->stop;
done_testing();
