# Helpers shared by quickstep_am's Perl TAP tests.
package QsTest;
use strict;
use warnings;
use Exporter 'import';
use IPC::Run;
use Time::HiRes qw(usleep);
use Test::More;

our @EXPORT = qw(qs_new_node crash_and_restart qs_wait_reinit qs_kill9 patch_file peek_file qs_start_victim
				 qs_column_same_rows qs_twin_insert qs_twin_same);

# qs_new_node(NAME, %init_params): a cluster with quickstep_am preloaded.
sub qs_new_node
{
	my ($name, %params) = @_;
	my $node = PostgreSQL::Test::Cluster->new($name);
	$node->init(%params);
	$node->append_conf('postgresql.conf', "shared_preload_libraries = 'quickstep_am'");
	return $node;
}

# qs_start_victim(NODE, QUERY): run QUERY in a psql of its own, with
# application_name 'victim' (for pg_stat_activity), and return its IPC::Run
# handle once the query is active.
sub qs_start_victim
{
	my ($node, $query) = @_;
	my ($out, $err) = ('', '');
	my $h = IPC::Run::start(
		[ 'psql', '-X', '-h', $node->host, '-p', $node->port, '-d', 'postgres', '-c',
		  "SET application_name = 'victim'; $query" ],
		'>', \$out, '2>', \$err);
	$node->poll_query_until('postgres', q{
		SELECT count(*) > 0 FROM pg_stat_activity WHERE application_name = 'victim' AND state = 'active'})
	  or die 'the victim did not start';
	return $h;
}

# crash_and_restart(NODE): SIGKILL the postmaster and every process it
# started, as a power cut would, then start it again so that crash recovery
# replays the WAL.  The children are killed too: a backend busy in a long
# statement notices its postmaster's death only when it next waits, and
# until it exits the new postmaster refuses to start (shared memory still
# in use; on a loaded machine that took over 30 s).  The start is retried
# for a while all the same (the dead are reaped by init).
sub crash_and_restart
{
	my ($node) = @_;
	my $pidfile = $node->data_dir . '/postmaster.pid';
	open my $fh, '<', $pidfile or BAIL_OUT("no $pidfile: $!");
	my $pid = <$fh>;
	close $fh;
	chomp $pid;
	my @kids = children_of($pid);

	$node->kill9;
	kill 'KILL', @kids if @kids;
	for (1 .. 300)
	{
		last unless grep { kill 0, $_ } ($pid, @kids);
		usleep(100_000);
	}
	for (1 .. 60)
	{
		return if $node->start(fail_ok => 1);
		# A failed start leaves Cluster.pm believing the node runs.
		$node->{_pid} = undef;
		usleep(500_000);
	}
	BAIL_OUT('the crashed node did not start again within 30 s');
}

# children_of(PID): the processes whose parent is PID (from /proc).
sub children_of
{
	my ($ppid) = @_;
	my @kids;
	opendir(my $dh, '/proc') or return ();
	for my $p (grep { /^\d+$/ } readdir $dh)
	{
		open my $st, '<', "/proc/$p/stat" or next;
		my $line = <$st>;
		close $st;
		# pid (comm) state ppid ...: comm may hold blanks and parentheses
		push @kids, $p if defined $line && $line =~ /^\d+ \(.*\)\s+\S+\s+(\d+)/ && $1 == $ppid;
	}
	closedir $dh;
	return @kids;
}

# qs_wait_reinit(NODE, LOGPOS): after a backend or worker of NODE was killed
# with SIGKILL (or died in a PANIC), wait until the postmaster has
# reinitialized and crash recovery is done.  LOGPOS is the log's size taken
# before the kill.  One pattern for both lines: both may already be in the log
# at the first look, and PG 15's wait_for_log returns the log's end, which may
# lie past the "ready" line.  Not poll_query_until: its psql, refused during
# the restart, may exit before it reads the query (IPC::Run: Broken pipe).
sub qs_wait_reinit
{
	my ($node, $logpos) = @_;
	$node->wait_for_log(
		qr/all server processes terminated; reinitializing.*database system is ready to accept connections/s,
		$logpos);
}

# qs_kill9(NODE, PID): SIGKILL one backend or worker of NODE, wait for the
# postmaster's reinitialization and recovery, and check that it answers.
sub qs_kill9
{
	my ($node, $pid) = @_;
	my $logpos = -s $node->logfile;
	kill 'KILL', $pid;
	qs_wait_reinit($node, $logpos);
	ok($node->poll_query_until('postgres', 'SELECT 1', '1'), 'the server is back after kill -9');
}

# patch_file(NODE, FILE, OFFSET, BYTES): overwrite bytes of a relation file
# of NODE while it is stopped (the corruption tests), then start it again.
sub patch_file
{
	my ($node, $file, $off, $bytes) = @_;
	$node->stop;
	open my $fh, '+<:raw', $file or die "open $file: $!";
	seek($fh, $off, 0) or die "seek $file: $!";
	print $fh $bytes;
	close $fh;
	$node->start;
}

# peek_file(FILE, OFFSET, LENGTH): bytes of a relation file.
sub peek_file
{
	my ($file, $off, $len) = @_;
	my $buf = '';
	open my $fh, '<:raw', $file or die "open $file: $!";
	seek($fh, $off, 0) or die "seek $file: $!";
	read($fh, $buf, $len);
	close $fh;
	return $buf;
}

# qs_column_same_rows(PRIMARY, NODE, WHAT, MAXID, MAXV): the rows of column
# table t (id, v; indexes on both) on NODE are heap twin h's on PRIMARY, by
# a sequential scan and through both indexes (ids 1..MAXID, values
# 0..MAXV), and check_table finds t clean.
sub qs_column_same_rows
{
	my ($primary, $nd, $what, $maxid, $maxv) = @_;
	my $q = q{SELECT count(*) || '/' || coalesce(sum(id), 0) || '/' || coalesce(sum(v), 0) FROM t};
	my $want = $primary->safe_psql('postgres', $q =~ s/FROM t/FROM h/r);
	is($nd->safe_psql('postgres', $q), $want, "$what: the rows by a sequential scan");
	is($nd->safe_psql('postgres', qq{
		SET enable_seqscan = off; SET enable_bitmapscan = off;
		SELECT (SELECT count(*) FROM generate_series(1, $maxid) g WHERE EXISTS (SELECT 1 FROM t WHERE id = g))
		    || '/' || (SELECT count(*) FROM generate_series(0, $maxv) x, LATERAL (SELECT id FROM t WHERE v = x) s)}),
		$primary->safe_psql('postgres', q{
		SELECT (SELECT count(*) FROM h) || '/' || (SELECT count(*) FROM h)}),
		"$what: the rows through both indexes");
	ok($nd->safe_psql('postgres', q{SELECT quickstep.check_table('t') IS NOT NULL}) eq 't',
		"$what: check_table is clean");
}

# qs_twin_insert(NODE, LO, HI): rows (g, g * 7) for g in LO..HI into the
# column table t and its heap twin h, in one transaction, kept in t's delta.
sub qs_twin_insert
{
	my ($node, $lo, $hi) = @_;
	$node->safe_psql('postgres', qq{
		SET quickstep.column_delta_rows = 100000000;
		BEGIN;
		INSERT INTO t SELECT g, g * 7 FROM generate_series($lo, $hi) g;
		INSERT INTO h SELECT g, g * 7 FROM generate_series($lo, $hi) g;
		COMMIT;
	});
}

# qs_twin_same(NODE, WHAT, N): t (id, v) holds exactly h's N rows, by a
# sequential scan and through its index on id, and check_table is clean.
sub qs_twin_same
{
	my ($node, $what, $n) = @_;
	is($node->safe_psql('postgres', q{
		SELECT (SELECT count(*) FROM (SELECT * FROM t EXCEPT ALL SELECT * FROM h) a) || '/' ||
		       (SELECT count(*) FROM (SELECT * FROM h EXCEPT ALL SELECT * FROM t) b) || '/' ||
		       (SELECT count(*) FROM t)}),
		"0/0/$n", "$what: t equals h, every row once");
	is($node->safe_psql('postgres', q{
		SET enable_seqscan = off; SET enable_bitmapscan = off;
		SELECT count(*) FROM h WHERE EXISTS (SELECT 1 FROM t WHERE t.id = h.id AND t.v = h.v)}),
		$n, "$what: every row through the index");
	is($node->safe_psql('postgres', q{SELECT quickstep.check_table('t') IS NOT NULL}), 't',
		"$what: check_table is clean");
}

1;
