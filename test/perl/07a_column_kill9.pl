# Crashes of a column table under load and updates (issue 12).  Rounds of
# (a) a bulk load (COPY or INSERT ... SELECT past
# quickstep.column_delta_rows, so into column blocks), (b) pgbench clients
# updating, deleting, re-inserting and inserting main and delta rows,
# rolling back some of it, calling quickstep.merge(), quickstep.seal() and
# VACUUM, and (c) a merge and seal by hand of a large delta, all with the
# merge worker merging as often as it can; each round ends with a kill -9
# of a backend (crash recovery of the whole cluster) or an immediate
# shutdown at a random moment.  Every transaction applies the same change
# to a heap twin in the same transaction, so after recovery the column
# table must hold exactly the twin's rows: no committed row lost, no
# rolled-back row visible.  Then the unique index, a bitmap scan and a
# sequential scan agree, check_table and amcheck are clean, the table
# still takes a load, a merge, a seal and VACUUM, and a streaming standby
# that replayed it all has the same rows.  Every VACUUM compacts the
# block directory (quickstep.debug_dir_compact_min = 0: whenever one entry
# is removable; column README section 4.7): the clients' and autovacuum's
# and, in rounds (a) and (c), a VACUUM loop beside the crashed
# transaction, so the kills land inside compactions too.  The test
# samples the directory while it waits for the kill and requires
# compactions before the kill of every round (b) and in all at least one
# a round; in half of the rounds (b) whose directory has two pages, a
# client's compaction is stopped between two pack steps
# (quickstep.debug_dir_wait) when the crash comes.  The kill points come from a
# seeded generator (QS_KILL9_SEED repeats a run; the seed is printed;
# QS_KILL9_ROUNDS runs more rounds than the default 4).
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;
use Time::HiRes qw(usleep time);
use FindBin;
use lib $FindBin::RealBin;
use QsTest;

my $seed = $ENV{QS_KILL9_SEED} || (int(time()) ^ $$) % 1000000;
srand($seed);
diag("07a_column_kill9 seed $seed (QS_KILL9_SEED=$seed repeats this run)");
my $rounds = $ENV{QS_KILL9_ROUNDS} || 4;

my $node = qs_new_node('column_kill9', allows_streaming => 1);
$node->append_conf('postgresql.conf', qq{
restart_after_crash = on
max_connections = 40
max_wal_size = 1GB
autovacuum_naptime = 1
quickstep.merge_workers = 1
quickstep.merge_naptime = 1
quickstep.merge_threshold = 0
quickstep.debug_dir_compact_min = 0
});
$node->start;
$node->safe_psql('postgres', q{
	CREATE EXTENSION quickstep_am;
	CREATE EXTENSION amcheck;
	CREATE TABLE t (id int NOT NULL, k text, v int8, pad text) USING quickstep_column
	  WITH (quickstep.rows_per_block = 20000, quickstep.sort_key = 'v');
	CREATE UNIQUE INDEX t_id ON t (id);
	CREATE INDEX t_k ON t (k);
	CREATE TABLE h (id int NOT NULL, k text, v int8, pad text);
	CREATE INDEX h_id ON h (id);
	-- ids of single inserts; bulk load b takes ids b * 1000000 and up
	CREATE SEQUENCE ids START 2000000000;
	CREATE SEQUENCE bulk START 1;
	-- the standby lags behind a loaded primary: keep its WAL across the
	-- checkpoints of crash recovery.  Reserved now (true): the slot is
	-- written to disk with its position at once; one that got its first
	-- position from the standby keeps it in memory only until a checkpoint,
	-- so a crash before that left it holding no WAL and the end-of-recovery
	-- checkpoint removed the segment the lagging standby still needed
	-- ("requested WAL segment ... has already been removed": PG 18, load 12)
	SELECT pg_create_physical_replication_slot('kill9_standby', true);
});
$node->backup('bk');
my $standby = PostgreSQL::Test::Cluster->new('column_kill9_standby');
$standby->init_from_backup($node, 'bk', has_streaming => 1);
$standby->append_conf('postgresql.conf', "primary_slot_name = 'kill9_standby'\n");
$standby->start;

my $dir = $node->basedir;
my $connstr = '-h ' . $node->host . ' -p ' . $node->port;
# a script of one VACUUM (crash_during runs it in a loop)
my $vacuum_loop = "$dir/vacuum_loop.sql";
open(my $vf, '>', $vacuum_loop) or die "open $vacuum_loop: $!";
print $vf "VACUUM t;\n";
close $vf;

# the rows of bulk load number b, the same in t and h
sub bulk_select
{
	my ($b, $n) = @_;
	my $lo = $b * 1000000;
	my $hi = $lo + $n - 1;
	return qq{SELECT g, 'k' || g % 97, (g::int8 * 7919) % 1000003, repeat('p', g % 37)
	  FROM generate_series($lo, $hi) g};
}

sub take_bulk
{
	return $node->safe_psql('postgres', q{SELECT nextval('bulk')});
}

# a committed load into both tables
sub load_committed
{
	my ($n) = @_;
	my $b = take_bulk();
	my $sel = bulk_select($b, $n);
	$node->safe_psql('postgres', qq{
		BEGIN;
		INSERT INTO t $sel;
		INSERT INTO h $sel;
		COMMIT;});
}

# t holds exactly h's rows; every access path agrees; the checkers are clean
sub check_all
{
	my ($what) = @_;
	is($node->safe_psql('postgres', q{
		SELECT (SELECT count(*) FROM (SELECT * FROM t EXCEPT ALL SELECT * FROM h) a) || '/' ||
		       (SELECT count(*) FROM (SELECT * FROM h EXCEPT ALL SELECT * FROM t) b)}),
		'0/0', "$what: t holds exactly the twin's rows");
	my $seq = $node->safe_psql('postgres', q{
		SET enable_indexscan = off; SET enable_bitmapscan = off;
		SELECT count(*) || '/' || coalesce(sum(v), 0) || '/' || count(DISTINCT id) FROM t});
	my $twin = $node->safe_psql('postgres', q{
		SELECT count(*) || '/' || coalesce(sum(v), 0) || '/' || count(DISTINCT id) FROM h});
	is($seq, $twin, "$what: sequential scan: count, sum and distinct ids as the twin");
	my $n = (split m{/}, $twin)[0];
	is($seq, "$n/" . (split m{/}, $twin)[1] . "/$n", "$what: every id once");
	is($node->safe_psql('postgres', q{
		SET enable_seqscan = off; SET enable_bitmapscan = off;
		SELECT count(*) || '/' || coalesce(sum(v), 0) || '/' || count(DISTINCT id) FROM t
		 WHERE id >= 0}), $seq, "$what: the unique index scan agrees");
	is($node->safe_psql('postgres', q{
		SET enable_seqscan = off; SET enable_indexscan = off;
		SELECT count(*) || '/' || coalesce(sum(v), 0) || '/' || count(DISTINCT id) FROM t
		 WHERE id >= 0}), $seq, "$what: the bitmap scan agrees");
	is($node->safe_psql('postgres', q{
		SET enable_seqscan = off; SET enable_bitmapscan = off;
		SELECT count(*) FROM h WHERE NOT EXISTS
		  (SELECT 1 FROM t WHERE t.id = h.id AND t.v = h.v AND t.k = h.k)}),
		'0', "$what: every twin row through the index");
	is($node->safe_psql('postgres', q{SELECT count(*) FROM t WHERE id < 0 OR v < 0}),
		'0', "$what: no rolled-back row is visible");
	is($node->safe_psql('postgres', q{SELECT quickstep.check_table('t') >= 0}), 't',
		"$what: check_table is clean");
	is($node->safe_psql('postgres', q{
		SELECT bt_index_check('t_id', true)::text || bt_index_check('t_k', true)::text}),
		'', "$what: amcheck of both indexes, every row indexed");
}

# the table takes a load, a merge, a seal and VACUUM
sub still_works
{
	my ($what) = @_;
	load_committed(30000);
	cmp_ok($node->safe_psql('postgres', q{SELECT quickstep.merge('t')}), '>=', 0,
		"$what: a merge");
	like($node->safe_psql('postgres', q{SELECT quickstep.seal('t')}), qr/^\d+$/,
		"$what: a seal");
	$node->safe_psql('postgres', 'VACUUM t');
	check_all("$what, after a load, a merge, a seal and VACUUM");
}

# the standby replays the same: its rows are the primary's
sub check_standby
{
	my ($what) = @_;
	$node->wait_for_catchup($standby, 'replay', $node->lsn('insert'));
	my $q = q{SELECT count(*) || '/' || md5(string_agg(id || ':' || k || ':' || v || ':' || pad, ',' ORDER BY id)) FROM t};
	is($standby->safe_psql('postgres', $q), $node->safe_psql('postgres', $q),
		"$what: the standby has the primary's rows");
	is($standby->safe_psql('postgres', q{
		SET enable_seqscan = off; SET enable_bitmapscan = off;
		SELECT count(*) FROM t WHERE id >= 0}),
		$node->safe_psql('postgres', 'SELECT count(*) FROM h'),
		"$what: the standby's index scan agrees");
	is($standby->safe_psql('postgres', q{SELECT quickstep.check_table('t') >= 0}), 't',
		"$what: check_table on the standby is clean");
}

# Directory compactions seen: only a compaction removes directory entries
# (merges, seals and loads add them, README 4.7), so each fall of the entry
# count between two samples is one compaction at least.  A lower bound: a
# compaction that removed fewer entries than were added since the last
# sample is not seen.
my $compactions_seen = 0;
# crashes of a compaction stopped between two pack steps (crash_during)
my $compactions_crashed = 0;

sub dir_entries
{
	return $node->safe_psql('postgres',
		q{SELECT entries FROM quickstep.column_directory('t')});
}

# wait MS milliseconds sampling the directory; the compactions seen
sub watch_dir
{
	my ($ms) = @_;
	my $end = time() + $ms / 1000;
	my $seen = 0;
	my $prev = dir_entries();
	while (time() < $end)
	{
		usleep(40_000);
		my $e = dir_entries();
		$seen++ if $e < $prev;
		$prev = $e;
	}
	$compactions_seen += $seen;
	return $seen;
}

# what VACUUMs of t do right now (a note before a crash)
sub vacuums_now
{
	return $node->safe_psql('postgres', q{
		SELECT count(*) || ' active VACUUM(s) of t'
		  FROM pg_stat_activity
		 WHERE state = 'active' AND query ~* '^\s*(autovacuum: )?VACUUM.*\yt\y'
		   AND pid <> pg_backend_pid()});
}

# VACUUMs waiting between two pack steps of a compaction (advisory lock
# (7401, 2), quickstep.debug_dir_wait = pack_step)
sub compactions_midway
{
	return $node->safe_psql('postgres', q{
		SELECT count(*) FROM pg_locks
		 WHERE locktype = 'advisory' AND classid = 7401 AND objid = 2 AND NOT granted});
}

# the pgbench clients' VACUUMs wait between two pack steps of their
# compaction (a directory of two pages or more) while a session holds
# advisory lock (7401, 2): that session, once one waits (within 2 s), or
# undef
sub stall_compaction
{
	return undef if $node->safe_psql('postgres',
		q{SELECT pages FROM quickstep.column_directory('t')}) < 2;
	my $holder = $node->background_psql('postgres', on_error_stop => 0);
	$holder->query_safe('SELECT pg_advisory_lock(7401, 2)');
	for (1 .. 40)
	{
		return $holder if compactions_midway() > 0;
		usleep(50_000);
	}
	$holder->query_safe('SELECT pg_advisory_unlock(7401, 2)');
	$holder->quit;
	return undef;
}

# kill -9 of the backend PID (or, with PID undef, of a random client
# backend) or an immediate shutdown; then the server is up again
sub crash
{
	my ($how, $pid) = @_;
	if ($how eq 'immediate')
	{
		$node->stop('immediate');
		$node->start;
		return;
	}
	if (!defined $pid)
	{
		$pid = $node->safe_psql('postgres', q{
			SELECT pid FROM pg_stat_activity
			 WHERE backend_type IN ('client backend', 'quickstep merge worker')
			   AND pid <> pg_backend_pid() ORDER BY random() LIMIT 1});
	}
	my $logpos = -s $node->logfile;
	if ($pid eq '' || !kill('KILL', $pid))
	{
		note('no process to kill: an immediate shutdown instead');
		crash('immediate');
		return;
	}
	qs_wait_reinit($node, $logpos);
	ok($node->poll_query_until('postgres', 'SELECT 1', '1'), 'the server is back after kill -9');
}

# one transaction running BODY in a session of its own, sometimes pausing
# before its COMMIT, and a crash at a random moment up to MAXDELAY ms
# after it started; then everything is checked.  Beside it a VACUUM loop
# runs (it compacts whenever an entry became removable: rarely during a
# load, whose new entries are live)
sub crash_during
{
	my ($r, $what, $body, $maxdelay) = @_;
	my $pause = rand() < 0.3 ? 1 : 0;
	my $how = rand() < 0.7 ? 'kill' : 'immediate';
	my $delay = int(rand($maxdelay));
	note("round $r: $what, pause $pause s before COMMIT, $how after $delay ms");
	my $bg = $node->background_psql('postgres', on_error_stop => 0);
	my $pid = $bg->query_safe('SELECT pg_backend_pid()');
	# a VACUUM loop beside it (each compacts): the crash may stop one
	my ($vout, $verr) = ('', '');
	my $vac = IPC::Run::start(
		[ 'pgbench', split(/ /, $connstr), '-n', '-c', '1', '-T', '600',
		  '-f', $vacuum_loop, 'postgres' ],
		'>', \$vout, '2>', \$verr);
	my $t0 = time();
	$bg->query_until(qr/started/, qq{
		\\echo started
		BEGIN;
		$body
		SELECT pg_sleep($pause);
		COMMIT;
	});
	my $seen = watch_dir($delay);
	my $state = $node->safe_psql('postgres', qq{
		SELECT string_agg(backend_type || ' ' || state || ': ' || left(query, 30), '; ')
		  FROM pg_stat_activity
		 WHERE pid = $pid OR backend_type = 'quickstep merge worker'});
	note(sprintf('round %d: crash at %.2f s, %s; %d compaction(s) seen, %s',
		$r, time() - $t0, $state || 'all gone', $seen, vacuums_now()));
	crash($how, $pid);
	eval { $bg->quit; };
	$vac->finish;
	my @verrors = grep { /ERROR:/ } split /\n/, $verr;
	is(scalar(@verrors), 0, "round $r: the VACUUM loop met no error before the crash")
	  or diag(join("\n", @verrors));
	check_all("round $r ($what, $how)");
}

# (a) a bulk load into blocks (in both tables, in one transaction)
sub round_load
{
	my ($r) = @_;
	my $n = 100000 + int(rand(150000));
	my $b = take_bulk();
	my $copy = rand() < 0.5;
	my $sel = bulk_select($b, $n);
	my $file = "$dir/bulk_$b.data";
	$node->safe_psql('postgres', "COPY ($sel) TO '$file'") if $copy;
	crash_during($r, ($copy ? 'COPY' : 'INSERT ... SELECT') . " of $n rows",
		$copy
		? "COPY t FROM '$file'; COPY h FROM '$file';"
		: "INSERT INTO t $sel; INSERT INTO h $sel;",
		2500);
	unlink $file;
}

# (c) a large committed delta, merged and sealed by hand while the merge
# worker may take it first
sub round_merge
{
	my ($r) = @_;
	my $n = 50000 + int(rand(100000));
	my $b = take_bulk();
	my $sel = bulk_select($b, $n);
	$node->safe_psql('postgres', qq{
		SET quickstep.column_delta_rows = 100000000;
		BEGIN;
		INSERT INTO t $sel;
		INSERT INTO h $sel;
		COMMIT;});
	crash_during($r, "merge and seal of a delta of $n rows",
		"SELECT quickstep.merge('t'); SELECT quickstep.seal('t');", 1200);
}

sub script
{
	my ($name, $body, $weight) = @_;
	open my $f, '>', "$dir/$name.sql" or die;
	print $f $body;
	close $f;
	return "-f $dir/$name.sql\@$weight";
}

# (b) pgbench traffic on main and delta rows, killed at a random moment
sub round_traffic
{
	my ($r) = @_;
	# an id of a bulk load (each has at least 3000 rows: most of them main
	# rows, the first ones delta rows), mostly of the first 30000 that most
	# loads have; a quarter of the time a row a single insert just put in
	# the delta
	my $maxb = $node->safe_psql('postgres', q{SELECT last_value FROM bulk});
	my $pick = "\\set b random(1, $maxb)\n\\set o random(0, 29999)\n"
	  . "SELECT CASE WHEN random() < 0.25 THEN (SELECT last_value FROM ids) - (random() * 100)::int\n"
	  . "  ELSE :b * 1000000 + :o END AS a \\gset";
	my @scripts = (
		# an update of one row, the twin set to what the update wrote
		script('update', <<"EOS", 8),
$pick
WITH u AS (UPDATE t SET v = v + 1, k = k || 'u', pad = left(pad, 5) WHERE id = :a RETURNING *)
UPDATE h SET k = u.k, v = u.v, pad = u.pad FROM u WHERE h.id = u.id;
EOS
		# a range update through the index, two statements in one transaction
		script('update_range', <<"EOS", 2),
$pick
BEGIN;
WITH u AS (UPDATE t SET v = v + 3 WHERE id BETWEEN :a AND :a + 30 RETURNING *)
UPDATE h SET v = u.v FROM u WHERE h.id = u.id;
WITH u AS (UPDATE t SET pad = pad || 'x' WHERE id BETWEEN :a + 10 AND :a + 20 RETURNING *)
UPDATE h SET pad = u.pad FROM u WHERE h.id = u.id;
END;
EOS
		script('delete', <<"EOS", 3),
$pick
WITH d AS (DELETE FROM t WHERE id = :a RETURNING id)
DELETE FROM h USING d WHERE h.id = d.id;
EOS
		# a row deleted and inserted again (into the delta): same values
		script('reinsert', <<"EOS", 2),
$pick
WITH d AS (DELETE FROM t WHERE id = :a RETURNING *) INSERT INTO t SELECT * FROM d;
EOS
		script('insert', <<"EOS", 4),
SELECT nextval('ids') AS n \\gset
WITH i AS (INSERT INTO t VALUES (:n, 'new', :n, 'i') RETURNING *) INSERT INTO h SELECT * FROM i;
EOS
		# a small bulk load past column_delta_rows
		script('load', <<"EOS", 1),
SELECT nextval('bulk') * 1000000 AS b \\gset
SET quickstep.column_delta_rows = 200;
BEGIN;
INSERT INTO t SELECT g, 'k' || g % 97, g % 1000, 'l' FROM generate_series(:b, :b + 2999) g;
INSERT INTO h SELECT g, 'k' || g % 97, g % 1000, 'l' FROM generate_series(:b, :b + 2999) g;
COMMIT;
RESET quickstep.column_delta_rows;
EOS
		# work that rolls back: none of it may stay visible
		script('rollback', <<"EOS", 2),
$pick
\\set r random(1, 1000000)
SET quickstep.column_delta_rows = 100;
BEGIN;
UPDATE t SET v = -1 WHERE id BETWEEN :a AND :a + 5;
DELETE FROM t WHERE id BETWEEN :a + 6 AND :a + 10;
INSERT INTO t SELECT -(:r * 1000 + g), 'rb', -1, 'rb' FROM generate_series(1, 500) g;
ROLLBACK;
RESET quickstep.column_delta_rows;
EOS
		script('merge', "SELECT quickstep.merge('t');\n", 1),
		script('seal', "SELECT quickstep.seal('t');\n", 1),
		# its compaction waits between two pack steps while a session
		# holds advisory lock (7401, 2) (stall_compaction)
		script('vacuum', "SET quickstep.debug_dir_wait = pack_step;\nVACUUM t;\n", 1));

	my $how = rand() < 0.7 ? 'kill' : 'immediate';
	my $delay = 2000 + int(rand(4000));
	note("round $r: traffic on the rows of $maxb loads and new ones, $how after $delay ms");
	my ($out, $err) = ('', '');
	local $ENV{PGAPPNAME} = 'kill9_pgbench';
	my $h = IPC::Run::start(
		[ 'pgbench', split(/ /, $connstr), '-n', '-c', '6', '-j', '2', '-T', '600',
		  '--max-tries=1000', map { split / / } @scripts, 'postgres' ],
		'>', \$out, '2>', \$err);
	# wait until the clients run
	for (1 .. 600)
	{
		eval { $h->pump_nb; };
		last if !$h->pumpable
		  || $node->safe_psql('postgres', q{
			SELECT count(*) >= 6 FROM pg_stat_activity WHERE application_name = 'kill9_pgbench'}) eq 't';
		usleep(100_000);
	}
	if (!$h->pumpable)
	{
		$h->finish;
		BAIL_OUT("pgbench did not run: $err");
	}
	my $seen = watch_dir($delay);
	cmp_ok($seen, '>=', 1, "round $r: directory compactions ran before the kill ($seen seen)");
	# the merges so far (the counters start at zero with the server)
	is($node->safe_psql('postgres', q{
		SELECT coalesce(last_error, '') FROM quickstep.merge_stats() WHERE relid = 't'::regclass}),
		'', "round $r: no merge failed");
	note("round $r: merges so far (merges|rows): " . $node->safe_psql('postgres', q{
		SELECT merges || '|' || rows_merged FROM quickstep.merge_stats() WHERE relid = 't'::regclass}));
	my $pid;
	if ($how eq 'kill')
	{
		# a pgbench client's backend or the merge worker, half of the time
		# one that merges, seals or vacuums right now if there is one
		my $busy = rand() < 0.5
		  ? q{(backend_type = 'quickstep merge worker' OR query ~ 'quickstep|VACUUM') AND state = 'active' DESC,}
		  : '';
		$pid = $node->safe_psql('postgres', qq{
			SELECT pid FROM pg_stat_activity
			 WHERE application_name = 'kill9_pgbench' OR backend_type = 'quickstep merge worker'
			 ORDER BY $busy random() LIMIT 1});
		note("round $r: kill -9 of " . $node->safe_psql('postgres',
			"SELECT backend_type || ' ' || coalesce(left(query, 40), '') FROM pg_stat_activity WHERE pid = $pid"));
	}
	# half of the time with a compaction stopped between two pack steps
	my $holder = rand() < 0.5 ? stall_compaction() : undef;
	my $midway = $holder ? compactions_midway() : 0;
	$compactions_crashed += $midway;
	note("round $r: " . vacuums_now() . " at the crash, $midway stopped between two pack steps");
	crash($how, $pid);
	$h->finish;
	eval { $holder->quit; } if $holder;
	note("round $r: pgbench: $1") if $out =~ /(number of transactions actually processed: \S+)/;
	my @errors = grep { /ERROR:/ } split /\n/, $err;
	is(scalar(@errors), 0, "round $r: the clients met no error before the crash")
	  or diag(join("\n", @errors));
	check_all("round $r (traffic, $how)");
}

load_committed(60000);
$node->safe_psql('postgres', q{SELECT quickstep.merge('t')});
check_all('after the first load');
for my $r (1 .. $rounds)
{
	# a load, traffic, a merge, traffic, ...: each kind at least once
	if ($r % 2) { $r % 4 == 3 ? round_merge($r) : round_load($r); }
	else { round_traffic($r); }
	note("round $r: directory (entries|pages|FREE entries): " . $node->safe_psql('postgres', q{
		SELECT entries || '|' || pages || '|' || free_entries FROM quickstep.column_directory('t')}));
	still_works("round $r");
	check_standby("round $r");
}

note("directory compactions seen in all: $compactions_seen; crashed between two pack steps: $compactions_crashed");
cmp_ok($compactions_seen, '>=', $rounds, 'directory compactions ran (at least one a round on average)');

$standby->stop;
$node->stop;
done_testing();
