# quickstep.merge() under concurrent load (THE RULE: a merge is invisible).
# A column table of accounts and its heap twin receive the same transfers
# in the same transactions (pgbench clients at READ COMMITTED and
# REPEATABLE READ, random accounts, lower id first; a serialization failure
# or deadlock between two transfers is retried as an application would),
# accounts are deleted and inserted again, while one client loops
# quickstep.merge() (and VACUUM now and then) and readers check in
# REPEATABLE READ snapshots that the total and the number of accounts never
# change and that the column table equals the heap twin row for row, by
# sequential and by index scans.  Clients on accounts nobody else touches
# (one at REPEATABLE READ, one SERIALIZABLE, one at READ COMMITTED) run
# without retries: a merge must never make them fail.  A streaming standby
# replays the merges while a reader checks the same invariants there.
# Afterwards the tables are equal row for row, check_table is clean, a last
# merge leaves no row in the delta; the same after a crash (immediate stop)
# and recovery, and on the standby.  No wall-clock assertion.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;
use Time::HiRes qw(usleep);
use FindBin;
use lib $FindBin::RealBin;
use QsTest;

my $seconds = $ENV{QS_MERGE_SECONDS} || 25;
my $n = 3000;					# shared accounts
my $np = 300;					# private accounts: 100 per private client
my $spare = 300;				# accounts deleted and inserted again
my $all = $n + $np + $spare;
my $total = ($n + $np) * 100;

my $node = qs_new_node('column_merge_stress', allows_streaming => 1);
$node->append_conf('postgresql.conf',
	"max_wal_size = 1GB\nmax_connections = 40\nautovacuum = off\n");
$node->start;
$node->safe_psql('postgres', qq{
	CREATE EXTENSION quickstep_am;
	CREATE TABLE acc (id int NOT NULL, bal int, note text) USING quickstep_column;
	CREATE TABLE hacc (id int NOT NULL, bal int, note text);
	SET quickstep.column_delta_rows = 1000000;
	INSERT INTO hacc SELECT i, CASE WHEN i <= $n + $np THEN 100 ELSE 0 END, 'n' || i
	  FROM generate_series(1, $all) i;
	INSERT INTO acc SELECT * FROM hacc;
	CREATE UNIQUE INDEX acc_id ON acc (id);
	CREATE UNIQUE INDEX hacc_id ON hacc (id);
	CREATE TABLE mlog (moved bigint);
});
my $in_main = q{SELECT count(*) FROM acc WHERE (ctid::text::point)[0] >= 2147483648};
is($node->safe_psql('postgres', $in_main), '0', 'every account starts in the delta');

# a streaming standby that replays everything below, through a slot: its
# replay waits for old snapshots (below) while the primary writes on, and
# without the slot the primary recycled WAL the standby still needed (a CI
# run under load timed out waiting for its catchup)
$node->safe_psql('postgres',
	q{SELECT pg_create_physical_replication_slot('column_merge_standby', true)});
$node->backup('b1');
my $standby = PostgreSQL::Test::Cluster->new('column_merge_standby');
$standby->init_from_backup($node, 'b1', has_streaming => 1);
$standby->append_conf('postgresql.conf',
	"max_standby_streaming_delay = -1\nhot_standby_feedback = off\nmax_connections = 40\n"
	  . "primary_slot_name = 'column_merge_standby'\n");
$standby->start;

my $dir = $node->basedir;
sub script
{
	my ($name, $body) = @_;
	open my $f, '>', "$dir/$name.sql" or die;
	print $f $body;
	close $f;
	return "$dir/$name.sql";
}

# the same transfer on both tables in one transaction
my $transfer = <<"EOS";
\\set a random(1, $n)
\\set b random(1, $n)
\\set lo least(:a, :b)
\\set hi greatest(:a, :b)
\\set d random(1, 10)
BEGIN ISOLATION LEVEL %s;
UPDATE acc SET bal = bal - :d WHERE id = :lo;
UPDATE acc SET bal = bal + :d WHERE id = :hi;
UPDATE hacc SET bal = bal - :d WHERE id = :lo;
UPDATE hacc SET bal = bal + :d WHERE id = :hi;
END;
EOS
script('transfer_rc', sprintf($transfer, 'READ COMMITTED'));
script('transfer_rr', sprintf($transfer, 'REPEATABLE READ'));
script('reinsert', <<"EOS");
\\set a random($n + $np + 1, $all)
BEGIN;
WITH d AS (DELETE FROM acc WHERE id = :a RETURNING *) INSERT INTO acc SELECT id, bal, note || '' FROM d;
WITH d AS (DELETE FROM hacc WHERE id = :a RETURNING *) INSERT INTO hacc SELECT id, bal, note || '' FROM d;
END;
EOS
script('lock', <<"EOS");
\\set a random(1, $n)
BEGIN;
SELECT count(*) FROM (SELECT 1 FROM acc WHERE id BETWEEN :a AND :a + 10 FOR KEY SHARE) x;
SELECT count(*) FROM (SELECT 1 FROM acc WHERE id BETWEEN :a AND :a + 3 FOR UPDATE SKIP LOCKED) x;
END;
EOS

# private accounts: client c of this pgbench owns ids n + 100c + 1 .. n + 100c + 100;
# client 0 runs SERIALIZABLE, client 1 REPEATABLE READ, client 2 READ COMMITTED.
# Nothing else writes these rows, so any error is the merge's fault.  The
# REPEATABLE READ / SERIALIZABLE ones read first and write after a pause, so
# that merges commit between their snapshot and their update.
my $private_body = <<"EOS";
\\set base $n + 100 * :client_id
\\set a :base + random(1, 100)
\\set b :base + random(1, 100)
\\set lo least(:a, :b)
\\set hi greatest(:a, :b)
\\set d random(1, 10)
\\if :client_id = 0
BEGIN ISOLATION LEVEL SERIALIZABLE;
\\elif :client_id = 1
BEGIN ISOLATION LEVEL REPEATABLE READ;
\\else
BEGIN ISOLATION LEVEL READ COMMITTED;
\\endif
SELECT bal AS blo FROM acc WHERE id = :lo \\gset
SELECT sum(bal) AS before FROM acc WHERE id > :base AND id <= :base + 100 \\gset
SELECT pg_sleep(0.01);
UPDATE acc SET bal = bal - :d WHERE id = :lo;
UPDATE acc SET bal = bal + :d WHERE id = :hi;
UPDATE hacc SET bal = bal - :d WHERE id = :lo;
UPDATE hacc SET bal = bal + :d WHERE id = :hi;
SELECT bal AS alo FROM acc WHERE id = :lo \\gset
SELECT sum(bal) AS after, count(*) AS cnt FROM acc WHERE id > :base AND id <= :base + 100 \\gset
SELECT CASE WHEN (:alo = :blo - :d OR :lo = :hi) AND :after = :before AND :cnt = 100 THEN 1
  ELSE ('MISMATCH private client :client_id: bal(:lo) :blo -> :alo (d :d), sum :before -> :after, count :cnt'::text)::int END;
END;
EOS
script('private', $private_body);

my $reader = <<"EOS";
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT sum(bal) AS s1, count(*) AS c1, count(DISTINCT id) AS d1, string_agg(id::text, ',') AS ids FROM acc \\gset
SELECT count(*) AS x1 FROM (SELECT id, bal, note FROM acc EXCEPT ALL SELECT id, bal, note FROM hacc) x \\gset
SELECT count(*) AS x2 FROM (SELECT id, bal, note FROM hacc EXCEPT ALL SELECT id, bal, note FROM acc) x \\gset
SELECT pg_sleep(0.01);
SET LOCAL enable_seqscan = off;
SET LOCAL enable_bitmapscan = off;
SELECT sum(bal) AS s2, count(*) AS c2 FROM acc WHERE id > 0 \\gset
SELECT coalesce(string_agg(x::text, ','), 'none') AS missing
  FROM unnest('{:ids}'::int[]) x WHERE NOT EXISTS (SELECT 1 FROM acc WHERE id = x) \\gset
SELECT coalesce(string_agg(id || ' at ' || ctid || '/xmin ' || xmin || '/xmax ' || xmax || '/bal ' || bal, ' '), 'none') AS twice
  FROM acc WHERE id IN (SELECT id FROM acc WHERE id > 0 GROUP BY id HAVING count(*) > 1) \\gset
SELECT CASE WHEN :s1 = $total AND :s2 = $total AND :c1 = $all AND :c2 = $all AND :d1 = $all
  AND :x1 = 0 AND :x2 = 0 THEN 1
  ELSE ('MISMATCH seq sum :s1 count :c1 distinct :d1, index sum :s2 count :c2, acc-hacc :x1, hacc-acc :x2 (want $total/$all); ids the index misses: :missing; rows the index returns twice: :twice'::text)::int END;
END;
EOS
script('reader', $reader);
script('reader_rc', <<"EOS");
SELECT sum(bal) AS s, count(*) AS c FROM acc \\gset
SELECT CASE WHEN :s = $total AND :c = $all THEN 1
  ELSE ('MISMATCH read committed sum :s count :c (want $total/$all)'::text)::int END;
EOS
script('vacuum', "VACUUM acc;\n");
script('merge', <<"EOS");
INSERT INTO mlog SELECT quickstep.merge('acc');
\\sleep 20 ms
EOS

sub pgbench_bg
{
	my ($target, $clients, $extra, @scripts) = @_;
	my %h = (out => '', err => '');
	my @cmd = ('pgbench', '-n', '-c', $clients, '-j', 1, '-T', $seconds, @$extra,
		'-h', $target->host, '-p', $target->port, @scripts, 'postgres');
	$h{cmd} = join(' ', @cmd);
	$h{h} = IPC::Run::start(\@cmd, '>', \$h{out}, '2>', \$h{err});
	return \%h;
}

my %runs = (
	shared => pgbench_bg($node, 4, ['--max-tries=1000'],
		'-f', "$dir/transfer_rc.sql\@4", '-f', "$dir/transfer_rr.sql\@2",
		'-f', "$dir/reinsert.sql\@1", '-f', "$dir/lock.sql\@1"),
	private => pgbench_bg($node, 3, [], '-f', "$dir/private.sql"),
	merger => pgbench_bg($node, 1, [], '-f', "$dir/merge.sql\@8", '-f', "$dir/vacuum.sql\@1"),
	reader => pgbench_bg($node, 1, [], '-f', "$dir/reader.sql\@3", '-f', "$dir/reader_rc.sql\@1"),
	standby_reader => pgbench_bg($standby, 2, [], '-f', "$dir/reader.sql"),
);
for my $name (sort keys %runs)
{
	my $r = $runs{$name};
	my $ok = $r->{h}->finish;
	ok($ok, "pgbench $name: exit status 0")
	  or diag("$r->{cmd}\nstdout:\n$r->{out}\nstderr:\n$r->{err}");
	like($r->{out}, qr/number of transactions actually processed: [1-9]/,
		"pgbench $name processed transactions");
	unlike($r->{out} . $r->{err}, qr/number of failed transactions: [1-9]|aborted|ERROR/,
		"pgbench $name: no failed transaction") or diag("stderr:\n$r->{err}");
	note("$name: " . join(' | ', grep { /processed|failed|retried|tps/ } split /\n/, $r->{out}));
}

my $moved = $node->safe_psql('postgres', 'SELECT coalesce(sum(moved), 0) FROM mlog');
cmp_ok($moved, '>', 0, "the merges moved rows ($moved)");
# How many accounts are in main blocks at the end is timing: each update
# takes its account back to the delta, and a merge moves only versions
# older than every snapshot, so the readers' long REPEATABLE READ
# transactions can keep the last seconds' versions in the delta (a CI run
# ended with 0 after 23,591 rows moved).  That moves land is asserted by
# the merges' count above and by the last merge below, on a quiet table.
note('accounts in main blocks after the run: ' . $node->safe_psql('postgres', $in_main));

my $rows_acc = q{SELECT md5(string_agg(id || ':' || bal || ':' || note, ',' ORDER BY id)) FROM acc};
sub check_all
{
	my ($target, $when) = @_;
	is($target->safe_psql('postgres', 'SELECT sum(bal), count(*), count(DISTINCT id) FROM acc'),
		"$total|$all|$all", "$when: total, count and distinct accounts");
	is($target->safe_psql('postgres', q{
		SELECT (SELECT count(*) FROM (SELECT * FROM acc EXCEPT ALL SELECT * FROM hacc) x),
		       (SELECT count(*) FROM (SELECT * FROM hacc EXCEPT ALL SELECT * FROM acc) x)}),
		'0|0', "$when: the column table equals its heap twin row for row");
	is($target->safe_psql('postgres', q{
		SET enable_seqscan = off; SET enable_bitmapscan = off;
		SELECT sum(bal), count(*) FROM acc WHERE id > 0}),
		"$total|$all", "$when: an index scan agrees");
	is($target->safe_psql('postgres', q{SELECT quickstep.check_table('acc') IS NOT NULL}), 't',
		"$when: check_table is clean");
}
check_all($node, 'after the run');
$node->wait_for_catchup($standby, 'replay');
check_all($standby, 'standby after the run');
is($standby->safe_psql('postgres', $rows_acc), $node->safe_psql('postgres', $rows_acc),
	'the standby has the primary\'s rows');

# with nothing else running every row is quiet: a merge empties the delta
cmp_ok($node->safe_psql('postgres', q{SELECT quickstep.merge('acc')}), '>=', 0, 'a last merge');
is($node->safe_psql('postgres',
	q{SELECT count(*) FROM acc WHERE (ctid::text::point)[0] < 2147483648}), '0',
	'no visible row is left in the delta');
check_all($node, 'after the last merge');

# A standby snapshot older than a merge keeps its rows, by index scans too,
# while VACUUM on the primary removes the moved delta versions: replay must
# wait for the snapshot (max_standby_streaming_delay = -1) before any index
# entry it still needs is gone.  Deterministic: the standby session holds
# its snapshot until replay waits on it (the startup process waits on
# RecoveryConflictSnapshot), then counts again.  The same for a row table
# (quickstep_nsm) whose rows are updated, as a control without any merge.
sub standby_snapshot_survives_vacuum
{
	my ($table, $change) = @_;
	my $sb = $standby->background_psql('postgres', on_error_stop => 0);
	$node->wait_for_catchup($standby, 'replay');
	$sb->query_safe('BEGIN ISOLATION LEVEL REPEATABLE READ');
	my $q_seq = "SELECT count(*), sum(bal) FROM $table";
	my $q_ix = "SET LOCAL enable_seqscan = off; SET LOCAL enable_bitmapscan = off; SELECT count(*), sum(bal) FROM $table WHERE id > 0";
	my $before = $sb->query_safe($q_seq);
	$node->safe_psql('postgres', $change);
	$node->safe_psql('postgres', "VACUUM $table");
	# wait until replay waits for the standby snapshot (or has replayed all)
	my $waited = 0;
	for (1 .. 300)
	{
		$waited = $standby->safe_psql('postgres',
			q{SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'startup'
			  AND wait_event = 'RecoveryConflictSnapshot'});
		last if $waited;
		last if $standby->safe_psql('postgres', 'SELECT pg_last_wal_replay_lsn()') eq
		  $node->safe_psql('postgres', 'SELECT pg_current_wal_lsn()');
		usleep(100_000);
	}
	note("$table: replay waits for the old standby snapshot: $waited");
	my $ix = $sb->query_safe($q_ix);
	my $seq = $sb->query_safe($q_seq);
	is($ix, $before, "$table: an index scan of a standby snapshot older than the change and VACUUM sees its rows");
	is($seq, $before, "$table: so does a sequential scan")
	  or diag("rows 3 and 6 in that snapshot (sequential scan): " . $sb->query_safe(
		"SET LOCAL enable_seqscan = on; SELECT string_agg(id || ' at ' || ctid || ' xmin ' || xmin || ' xmax ' || xmax || ' bal ' || bal, '; ') FROM $table WHERE id + 0 IN (3, 6)")
		. "\nrows 3 and 6 now on the primary: " . $node->safe_psql('postgres',
		"SELECT string_agg(id || ' at ' || ctid || ' xmin ' || xmin || ' xmax ' || xmax, '; ') FROM $table WHERE id IN (3, 6)"));
	$sb->query_safe('COMMIT');
	$sb->quit;
	$node->wait_for_catchup($standby, 'replay');
}
$node->safe_psql('postgres', q{
	CREATE TABLE nacc (id int NOT NULL, bal int) USING quickstep_nsm;
	INSERT INTO nacc SELECT i, 100 FROM generate_series(1, 3000) i;
	CREATE UNIQUE INDEX nacc_id ON nacc (id);
	UPDATE acc SET note = note WHERE id % 3 = 0; UPDATE hacc SET note = note WHERE id % 3 = 0;});
standby_snapshot_survives_vacuum('acc', q{SELECT quickstep.merge('acc')});
standby_snapshot_survives_vacuum('nacc', q{UPDATE nacc SET bal = bal + 1 WHERE id % 2 = 0});
check_all($node, 'after the standby snapshot checks');

# crash recovery: moves of committed and of uncommitted merges
$node->safe_psql('postgres', q{
	UPDATE acc SET bal = bal + 1 WHERE id = 1; UPDATE acc SET bal = bal - 1 WHERE id = 2;
	UPDATE hacc SET bal = bal + 1 WHERE id = 1; UPDATE hacc SET bal = bal - 1 WHERE id = 2;
	SELECT quickstep.merge('acc');
	UPDATE acc SET note = note || '+' WHERE id % 97 = 0; UPDATE hacc SET note = note || '+' WHERE id % 97 = 0;});
my $bg = $node->background_psql('postgres');
$bg->query_safe('BEGIN');
$bg->query_safe(q{SELECT quickstep.merge('acc')});
$node->stop('immediate');
eval { $bg->quit; };
$node->start;
check_all($node, 'after a crash during an uncommitted merge');
cmp_ok($node->safe_psql('postgres', q{SELECT quickstep.merge('acc')}), '>', 0,
	'the rows of the crashed merge move again');
check_all($node, 'after the merge after the crash');
$node->stop('immediate');
$node->start;
check_all($node, 'after a second crash');
$node->safe_psql('postgres', 'VACUUM acc');
check_all($node, 'after VACUUM');
$node->wait_for_catchup($standby, 'replay');
check_all($standby, 'standby at the end');
is($standby->safe_psql('postgres', $rows_acc), $node->safe_psql('postgres', $rows_acc),
	'the standby has the primary\'s rows at the end');

$standby->stop;
$node->stop;
done_testing();
