# The merge worker (issue 14, src/merge/launcher.c, worker.c): with
# quickstep.merge_naptime = 1s and quickstep.merge_threshold = 0 it merges
# column tables nobody merges by hand, and the rows stay those of a heap twin
# that received the same statements.  Also: pg_stat_activity shows the
# launcher and the worker; pgbench's single-row updates get no error while
# the worker merges; a table locked by DDL is skipped, the others merged; an
# error in one table is recorded as its last_error and the others merged;
# pg_cancel_backend ends one table's merge; kill -9 of the worker and an
# immediate stop of the postmaster while it merges a big delta lose and
# double no row (check_table clean); ALTER TABLE and DROP TABLE issued while
# the worker merges the table wait for that merge only, and succeed.
#
# Every wait is a poll with the harness's timeout; nothing asserts how long
# anything took.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(usleep);
use FindBin;
use lib $FindBin::RealBin;
use QsTest;

my $node = qs_new_node('merge_worker', allows_streaming => 1);
$node->append_conf('postgresql.conf', qq{
quickstep.merge_naptime = 1s
quickstep.merge_threshold = 0
autovacuum = off
restart_after_crash = on
max_connections = 40
max_wal_size = 1GB
});
$node->start;

$node->safe_psql('postgres', q{
	CREATE EXTENSION quickstep_am;
	CREATE TABLE c (id int PRIMARY KEY, v int, t text) USING quickstep_column;
	CREATE TABLE h (id int PRIMARY KEY, v int, t text);
	CREATE INDEX c_v ON c (v);
});

# the content of a table, as one comparable string
sub content
{
	my ($tab, $cols, $on) = @_;
	$cols //= 'id, v, t';
	$on //= $node;
	return $on->safe_psql('postgres', qq{
		SELECT count(*), coalesce(sum(id), 0), coalesce(sum(v), 0),
		       md5(coalesce(string_agg(($cols)::text, ',' ORDER BY id), ''))
		  FROM $tab});
}

sub same_rows
{
	my ($col, $heap, $what, $cols) = @_;
	is(content($col, $cols), content($heap, $cols), "$what: $col has the rows of $heap");
	is($node->safe_psql('postgres', qq{SELECT quickstep.check_table('$col') >= 0}), 't',
		"$what: check_table('$col') is clean");
}

sub col_stat
{
	my ($tab, $col) = @_;
	return $node->safe_psql('postgres',
		qq{SELECT $col FROM quickstep.column_stats WHERE relid = '$tab'::regclass});
}

# ---------------------------------------------------------------------
# the launcher is there, under its name
is($node->safe_psql('postgres', q{
	SELECT count(*) FROM pg_stat_activity
	 WHERE backend_type = 'quickstep merge launcher'
	   AND application_name = 'quickstep merge launcher'}), '1',
	'pg_stat_activity shows the merge launcher');

# ---------------------------------------------------------------------
# many small transactions; nobody merges by hand
my $sql = '';
for my $i (0 .. 299)
{
	my ($lo, $hi) = ($i * 5 + 1, $i * 5 + 5);
	for my $t ('c', 'h')
	{
		$sql .= "INSERT INTO $t SELECT g, g % 17, 'r' || g FROM generate_series($lo, $hi) g;\n";
	}
	$sql .= "UPDATE c SET v = v + 1 WHERE id = $lo; UPDATE h SET v = v + 1 WHERE id = $lo;\n"
	  if $i % 10 == 0;
	$sql .= "DELETE FROM c WHERE id = $hi; DELETE FROM h WHERE id = $hi;\n"
	  if $i % 15 == 0;
}
$node->safe_psql('postgres', $sql);
ok($node->poll_query_until('postgres', q{
	SELECT delta_rows = 0 AND merges > 0 AND rows_merged > 0
	  FROM quickstep.column_stats WHERE relid = 'c'::regclass}),
	'the worker merged the delta of many small transactions');
cmp_ok(col_stat('c', 'main_rows'), '>', 0, 'the rows are in column blocks');
same_rows('c', 'h', 'after the worker merged');
is($node->safe_psql('postgres', q{
	SET enable_seqscan = off; SET enable_bitmapscan = off;
	SELECT count(*), sum(v) FROM c WHERE id > 0}),
	$node->safe_psql('postgres', q{SELECT count(*), sum(v) FROM h}),
	'an index scan finds the merged rows');
is(col_stat('c', q{last_merge IS NOT NULL AND merge_ms >= 0 AND last_error IS NULL}), 't',
	'column_stats: last_merge, merge_ms, no error');

# quickstep.merge() by hand counts too
$node->safe_psql('postgres', q{INSERT INTO c VALUES (100000, 1, 'x'); INSERT INTO h VALUES (100000, 1, 'x')});
my $before = col_stat('c', 'merges');
$node->safe_psql('postgres', q{SELECT quickstep.merge('c')});
cmp_ok(col_stat('c', 'merges'), '>', $before, 'quickstep.merge() is counted');

# ---------------------------------------------------------------------
# pgbench: single-row updates while the worker merges; none fails
$node->safe_psql('postgres', q{
	CREATE TABLE acc (id int PRIMARY KEY, bal int NOT NULL) USING quickstep_column;
	INSERT INTO acc SELECT g, 0 FROM generate_series(1, 5000) g;
	CREATE TABLE upd_log (id int);
});
my $dir = $node->basedir;
open my $f, '>', "$dir/upd.sql" or die;
print $f <<'EOS';
\set id random(1, 5000)
BEGIN;
UPDATE acc SET bal = bal + 1 WHERE id = :id;
INSERT INTO upd_log VALUES (:id);
END;
EOS
close $f;
$before = col_stat('acc', 'merges');
$node->pgbench("-n -c 4 -j 2 -T 10 -f $dir/upd.sql", 0, [qr/processed: \d+/], [qr/^$/],
	'pgbench single-row updates while the worker merges: no error');
cmp_ok(col_stat('acc', 'merges'), '>', $before, 'the worker merged acc during the updates');
is($node->safe_psql('postgres', q{
	SELECT count(*) FROM acc a
	  FULL JOIN (SELECT id, count(*) AS n FROM upd_log GROUP BY id) l USING (id)
	 WHERE a.id IS NULL OR a.bal <> coalesce(l.n, 0)}), '0',
	'every account has exactly its committed updates');
is($node->safe_psql('postgres', q{SELECT count(*), count(DISTINCT id) FROM acc}), '5000|5000',
	'every account once');
is($node->safe_psql('postgres', q{SELECT quickstep.check_table('acc') >= 0}), 't',
	'check_table(acc) is clean');

# ---------------------------------------------------------------------
# a table locked by DDL (here a lock as VACUUM's or CREATE INDEX
# CONCURRENTLY's, which lets the inserts through) is skipped; the others are
# merged.  The locker holds no snapshot between its statements, so the rows
# are movable.
$node->safe_psql('postgres', q{
	CREATE TABLE lk (id int, v int, t text) USING quickstep_column;
	CREATE TABLE lk2 (id int, v int, t text) USING quickstep_column;
});
my $bg = $node->background_psql('postgres');
$bg->query_safe('BEGIN');
$bg->query_safe('LOCK TABLE lk IN SHARE UPDATE EXCLUSIVE MODE');
$node->safe_psql('postgres', q{INSERT INTO lk SELECT g, g, 'l' FROM generate_series(1, 100) g});
$node->safe_psql('postgres', q{INSERT INTO lk2 SELECT g, g, 'l' FROM generate_series(1, 100) g});
ok($node->poll_query_until('postgres', q{
	SELECT delta_rows = 0 FROM quickstep.column_table_stats('lk2')}),
	'the worker merges a table while another is locked');
is($node->safe_psql('postgres', q{
	SELECT (SELECT delta_rows FROM quickstep.column_table_stats('lk')),
	       (SELECT count(*) FROM quickstep.merge_stats() WHERE relid = 'lk'::regclass AND merges > 0)}),
	'100|0', 'and has not merged the locked one (nor waited for it)');
$bg->query_safe('COMMIT');
$bg->quit;
ok($node->poll_query_until('postgres', q{
	SELECT delta_rows = 0 AND merges > 0 FROM quickstep.column_stats WHERE relid = 'lk'::regclass}),
	'once the lock is gone it is merged');

# ---------------------------------------------------------------------
# an error in one table is recorded; the others are still merged
$node->safe_psql('postgres', q{
	CREATE TABLE flag (x int);
	CREATE FUNCTION boom(int) RETURNS int LANGUAGE plpgsql IMMUTABLE AS $$
	BEGIN
		IF EXISTS (SELECT 1 FROM public.flag) THEN
			RAISE EXCEPTION 'boom at %', $1;
		END IF;
		RETURN $1;
	END $$;
	CREATE TABLE e (a int) USING quickstep_column;
	CREATE INDEX e_boom ON e (public.boom(a));
	INSERT INTO e SELECT generate_series(1, 10);
	INSERT INTO flag VALUES (1);
});
ok($node->poll_query_until('postgres', q{
	SELECT last_error LIKE 'boom at %' FROM quickstep.column_stats WHERE relid = 'e'::regclass}),
	'an error of the merge of a table is its last_error');
$node->safe_psql('postgres', q{INSERT INTO c VALUES (100001, 2, 'y'); INSERT INTO h VALUES (100001, 2, 'y')});
ok($node->poll_query_until('postgres', q{
	SELECT delta_rows = 0 FROM quickstep.column_stats WHERE relid = 'c'::regclass}),
	'the worker goes on merging the other tables');
is(col_stat('e', 'delta_rows || $$|$$ || merges'), '10|0', 'the failed merge left the delta as it was');
$node->safe_psql('postgres', q{DELETE FROM flag});
ok($node->poll_query_until('postgres', q{
	SELECT delta_rows = 0 AND merges > 0 FROM quickstep.column_stats WHERE relid = 'e'::regclass}),
	'the table is merged once the error is gone');

# ---------------------------------------------------------------------
# a big delta: cancel, kill -9 of the worker, immediate stop, ALTER, DROP
$node->safe_psql('postgres', q{
	CREATE TABLE big (id int, v int, t text) USING quickstep_column;
	CREATE TABLE bigh (id int, v int, t text);
	CREATE INDEX big_id ON big (id);
});
my $nbig = 0;
sub load_big
{
	my $n = 300000;
	my ($lo, $hi) = ($nbig + 1, $nbig + $n);
	$nbig += $n;
	$node->safe_psql('postgres', qq{
		SET quickstep.column_delta_rows = 100000000;
		BEGIN;
		INSERT INTO big SELECT g, g % 1000, 'big row ' || g FROM generate_series($lo, $hi) g;
		INSERT INTO bigh SELECT g, g % 1000, 'big row ' || g FROM generate_series($lo, $hi) g;
		COMMIT;
	});
}

# the pid of the worker while it merges big
sub merging_big
{
	# one query that sees the merge and names its pid: two (a poll, then
	# the pid) raced a merge that ended in between (seen once in CI)
	for (my $try = 0; $try < 1800; $try++)
	{
		my $pid = $node->safe_psql('postgres', q{
			SELECT pid FROM pg_stat_activity
			 WHERE backend_type = 'quickstep merge worker' AND query = 'merging public.big'
			   AND application_name = 'quickstep merge worker' LIMIT 1});
		return $pid if $pid ne '';
		usleep(100_000);
	}
	return undef;
}

load_big();
my $pid = merging_big();
ok($pid, "pg_stat_activity shows the worker merging public.big (pid $pid)");
$node->safe_psql('postgres', "SELECT pg_cancel_backend($pid)");
ok($node->poll_query_until('postgres', q{
	SELECT last_error LIKE '%cancel%' FROM quickstep.column_stats WHERE relid = 'big'::regclass}),
	'pg_cancel_backend on the worker ends that merge (its last_error)');
same_rows('big', 'bigh', 'after a cancelled merge');

# each step loads a new delta: the worker may have merged the last one
# while the checks ran
load_big();
$pid = merging_big();
ok($pid, 'the worker merges big again');
qs_kill9($node, $pid);
same_rows('big', 'bigh', 'after kill -9 of the worker during its merge');

load_big();
$pid = merging_big();
ok($pid, 'after the restart the worker merges big again');
$node->stop('immediate');
$node->start;
same_rows('big', 'bigh', 'after an immediate stop during a merge');
ok($node->poll_query_until('postgres', q{
	SELECT delta_rows = 0 FROM quickstep.column_stats WHERE relid = 'big'::regclass}),
	'the worker merges big to the end');
same_rows('big', 'bigh', 'after the merge');
same_rows('c', 'h', 'the small table after the crashes');

load_big();
$pid = merging_big();
ok($pid, 'the worker merges a new delta of big');
$node->safe_psql('postgres', q{ALTER TABLE big ADD COLUMN z int DEFAULT 7});
pass('ALTER TABLE issued during the merge waited for it and succeeded');
is($node->safe_psql('postgres', q{SELECT count(*) FILTER (WHERE z = 7), count(*) FROM big}),
	"$nbig|$nbig", 'the new column is there on every row');
same_rows('big', 'bigh', 'after ALTER TABLE during the merge');

load_big();
$pid = merging_big();
ok($pid, 'the worker merges a delta of big (TRUNCATE comes)');
$node->safe_psql('postgres', q{TRUNCATE big, bigh});
pass('TRUNCATE issued during the merge waited for it and succeeded');
same_rows('big', 'bigh', 'after TRUNCATE during the merge');
is($node->safe_psql('postgres', q{SELECT count(*) FROM big}), '0', 'and big is empty');

load_big();
$pid = merging_big();
ok($pid, 'the worker merges big once more');
$node->safe_psql('postgres', q{DROP TABLE big});
pass('DROP TABLE issued during the merge waited for it and succeeded');
is($node->safe_psql('postgres', q{SELECT count(*) FROM quickstep.column_stats WHERE relid::text = 'big'}),
	'0', 'the dropped table is gone from column_stats');

# the worker still works after all this
$node->safe_psql('postgres', q{INSERT INTO c VALUES (100002, 3, 'z'); INSERT INTO h VALUES (100002, 3, 'z')});
ok($node->poll_query_until('postgres', q{
	SELECT delta_rows = 0 FROM quickstep.column_stats WHERE relid = 'c'::regclass}),
	'the worker goes on after DDL, cancel and crashes');
same_rows('c', 'h', 'at the end');

# ---------------------------------------------------------------------
# a standby replays the worker's merges while it answers queries (no
# launcher runs there)
$node->backup('wk_backup');
my $standby = PostgreSQL::Test::Cluster->new('merge_worker_standby');
$standby->init_from_backup($node, 'wk_backup', has_streaming => 1);
$standby->start;
for my $i (0 .. 49)
{
	my $lo = 200000 + $i * 20;
	$node->safe_psql('postgres', qq{
		INSERT INTO c SELECT g, g % 7, 's' || g FROM generate_series($lo, $lo + 19) g;
		INSERT INTO h SELECT g, g % 7, 's' || g FROM generate_series($lo, $lo + 19) g;});
	# a reader on the standby between the primary's merges
	$standby->safe_psql('postgres', 'SELECT count(*) FROM c WHERE v = 3') if $i % 10 == 0;
}
ok($node->poll_query_until('postgres', q{
	SELECT delta_rows = 0 FROM quickstep.column_stats WHERE relid = 'c'::regclass}),
	'the worker merges the new rows on the primary');
$node->wait_for_catchup($standby, 'replay');
is(content('c', undef, $standby), content('h'), 'the standby has the rows of the heap twin after replaying the merges');
is($standby->safe_psql('postgres', q{
	SELECT count(*) FROM pg_stat_activity WHERE backend_type LIKE 'quickstep merge%'}),
	'0', 'no merge launcher or worker runs on the standby');
is($standby->safe_psql('postgres', q{SELECT quickstep.check_table('c') >= 0}), 't',
	'check_table is clean on the standby');
$standby->stop;

# ---------------------------------------------------------------------
# more databases: the launcher finds those with the extension (one with
# the extension created after the server started, one without)
for my $db ('wk_db2', 'wk_db3', 'wk_noext')
{
	$node->safe_psql('postgres', "CREATE DATABASE $db");
}
for my $db ('wk_db2', 'wk_db3')
{
	$node->safe_psql($db, q{
		CREATE EXTENSION quickstep_am;
		CREATE TABLE d (id int, v text) USING quickstep_column;
		CREATE TABLE dh (id int, v text);
	});
	for my $i (1 .. 20)
	{
		$node->safe_psql($db, qq{
			INSERT INTO d SELECT g, 'd' || g FROM generate_series($i * 10, $i * 10 + 9) g;
			INSERT INTO dh SELECT g, 'd' || g FROM generate_series($i * 10, $i * 10 + 9) g;});
	}
}
for my $db ('wk_db2', 'wk_db3')
{
	ok($node->poll_query_until($db, q{
		SELECT delta_rows = 0 AND merges > 0 FROM quickstep.column_stats WHERE relid = 'd'::regclass}),
		"the worker merges in database $db too");
	is($node->safe_psql($db, q{
		SELECT (SELECT md5(string_agg(id || v, ',' ORDER BY id)) FROM d) =
		       (SELECT md5(string_agg(id || v, ',' ORDER BY id)) FROM dh)
		   AND quickstep.check_table('d') >= 0}), 't', "$db: the rows are the heap twin's");
}
is($node->safe_psql('wk_db2', q{
	SELECT string_agg(relid::regclass::text, ',') FROM quickstep.merge_stats()}), 'd',
	'merge_stats() shows the counters of its own database only');
# DROP DATABASE waits at most for one pass of a worker there
$node->safe_psql('postgres', 'DROP DATABASE wk_db3');
pass('DROP DATABASE of a database the worker visits');

# ---------------------------------------------------------------------
# per-table triggers: the merge_threshold option replaces the server's
# quickstep.merge_threshold; merge_fraction lowers the trigger to that share
# of the main rows (never below 1000).  With the server's threshold at 1M,
# only tp (option 500, 600 movable rows) and tf (fraction 0.5 of 4000 main
# rows = 2000, 2500 movable) pass theirs; tq (no option) and tf9 (0.9 of
# 4000 = 3600) keep their deltas.  tq and tf9 are created first, so a pass
# that merges tp and tf has looked at them already.
$node->safe_psql('postgres', 'ALTER SYSTEM SET quickstep.merge_threshold = 1000000');
$node->safe_psql('postgres', 'SELECT pg_reload_conf()');
ok($node->poll_query_until('postgres', 'SHOW quickstep.merge_threshold', '1000000'),
	'the server threshold is raised');
$node->safe_psql('postgres', q{
	CREATE TABLE tq (id int, v int) USING quickstep_column;
	CREATE TABLE tf9 (id int, v int) USING quickstep_column WITH (quickstep.merge_fraction = 0.9);
	CREATE TABLE tp (id int, v int) USING quickstep_column WITH (quickstep.merge_threshold = 500);
	CREATE TABLE tf (id int, v int) USING quickstep_column WITH (quickstep.merge_fraction = 0.5);
});
# 5000 rows in one command: 1000 to the delta, 4000 into blocks
# (quickstep.column_delta_rows)
$node->safe_psql('postgres', "INSERT INTO $_ SELECT g, g FROM generate_series(1, 5000) g")
	for ('tq', 'tf9', 'tf');
for my $i (0 .. 2)
{
	my $lo = 5001 + $i * 500;
	$node->safe_psql('postgres',
		"INSERT INTO $_ SELECT g, g FROM generate_series($lo, $lo + 499) g")
	  for ('tq', 'tf9', 'tf');
}
$node->safe_psql('postgres', "INSERT INTO tp SELECT g, g FROM generate_series(1, 300) g")
	for (1 .. 2);
ok($node->poll_query_until('postgres', q{
	SELECT bool_and(delta_rows = 0 AND merges > 0) FROM quickstep.column_stats
	 WHERE relid::regclass::text IN ('tp', 'tf')}),
	'the worker merges the tables past their own triggers (merge_threshold, merge_fraction)');
is($node->safe_psql('postgres', q{
	SELECT string_agg(relid::regclass || ':' || main_rows || '/' || delta_rows || '/' || merges, ' '
	                  ORDER BY relid::regclass::text)
	  FROM quickstep.column_stats WHERE relid::regclass::text IN ('tq', 'tf9')}),
	'tf9:4000/2500/0 tq:4000/2500/0', 'tables below their triggers keep their deltas (main/delta/merges)');

$node->stop;
done_testing();
