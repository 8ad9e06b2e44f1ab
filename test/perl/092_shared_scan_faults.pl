# Shared scans (src/shared/README.md, review step 2 M1): a scanner that dies
# while it owes others a chunk leaves them their rows and frees its slot.
# A parked cursor is a member; another session scans the table and serves
# it, and fails at a chosen point (quickstep.debug_shared_fault: FATAL
# after it joined, while it scans the chunk it owes, after its first round
# of sends), or is terminated (pg_terminate_backend) or killed (kill -9)
# while it serves.  The cursor then reads the rest: the rows of its
# unshared scan; the registry holds nobody afterwards.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;
use FindBin;
use lib $FindBin::RealBin;
use QsTest;

my $node = qs_new_node('shared_scan_faults');
$node->append_conf('postgresql.conf', q{
quickstep.max_shared_scans = 2
quickstep.merge_workers = 0
autovacuum = off
restart_after_crash = on
max_parallel_workers_per_gather = 0
});
$node->start;
$node->safe_psql('postgres', q{
	CREATE EXTENSION quickstep_am;
	CREATE TABLE t (id int, k int, pad text) USING quickstep_nsm;
	INSERT INTO t SELECT g, g % 100, repeat('p', 40) FROM generate_series(1, 100000) g;
	CREATE FUNCTION rest(c refcursor, OUT n bigint, OUT s bigint)
	LANGUAGE plpgsql AS $$
	DECLARE
		v int;
	BEGIN
		n := 0;
		s := 0;
		LOOP
			FETCH c INTO v;
			EXIT WHEN NOT FOUND;
			n := n + 1;
			s := s + v;
		END LOOP;
	END $$;
	ALTER DATABASE postgres SET quickstep.enable_shared_scan = on;
	ALTER DATABASE postgres SET cpu_operator_cost = 1;
});

# A session that holds a parked shared cursor: BEGIN, DECLARE, FETCH 1.
sub parked_member
{
	my ($in, $out, $err) = ('', '', '');
	my $h = IPC::Run::start(
		[ 'psql', '-X', '-A', '-t', '-h', $node->host, '-p', $node->port, '-d', 'postgres' ],
		'<', \$in, '>', \$out, '2>', \$err);
	$in .= "BEGIN;\nDECLARE c NO SCROLL CURSOR FOR SELECT id FROM t WHERE k >= 0;\nFETCH 1 FROM c;\n";
	$h->pump until $out =~ /^1$/m || $err ne '';
	die "parked member: $err" if $err ne '';
	return { h => $h, in => \$in, out => \$out, err => \$err };
}

# The parked cursor reads the rest: every row but the first, once.
sub finish_member
{
	my ($m, $what) = @_;
	${ $m->{in} } .= "SELECT 'rest', * FROM rest('c');\nCOMMIT;\n\\q\n";
	$m->{h}->finish;
	like(${ $m->{out} }, qr/^rest\|99999\|5000049999$/m, "$what: the member has its rows");
	is(${ $m->{err} }, '', "$what: the member had no error");
}

# A session that scans t and serves the parked member; returns its stderr
sub scanner
{
	my ($setting, $served) = @_;
	my ($out, $err) = ('', '');
	IPC::Run::run(
		[ 'psql', '-X', '-q', '-A', '-t', '-h', $node->host, '-p', $node->port, '-d', 'postgres',
		  '-c', "SET quickstep.debug_shared_fault = $setting",
		  '-c', 'SELECT count(*), sum(id) FROM t WHERE k >= 0',
		  $served ? ('-c', 'SELECT chunks_served > 0 FROM quickstep.shared_scan_backend_stats()') : () ],
		'>', \$out, '2>', \$err);
	return ($out, $err);
}

for my $point (qw(after_join in_scan in_delivery))
{
	my $m = parked_member();
	my ($out, $err) = scanner("fatal_$point");
	like($err, qr/FATAL:  shared scan fault injected $point/, "FATAL $point: the scanner died");
	is($out, '', "FATAL $point: it returned nothing");
	is($node->safe_psql('postgres', 'SELECT members FROM quickstep.shared_scans'), '1',
		"FATAL $point: its slot is free, the member's is not");
	finish_member($m, "FATAL $point");
	is($node->safe_psql('postgres', 'SELECT count(*) FROM quickstep.shared_scans'), '0',
		"FATAL $point: the registry is empty");
}

# The same scanner without the fault: served the member, the right answer
{
	my $m = parked_member();
	my ($out, $err) = scanner('off', 1);
	is($out, "100000|5000050000\nt\n", 'no fault: the scanner has its rows and served (a slot of each failed scanner\'s member is free again)');
	finish_member($m, 'no fault');
}

# A scanner terminated, or killed, while it serves: a scanner slowed down
# by a volatile filter above its scan (run after its own chunk's rows come
# out, so it holds a step between deliveries of later chunks) is stopped
# mid-circle.
sub slow_scanner
{
	my $h = qs_start_victim($node,
		q{SELECT count(*) FROM t WHERE k >= 0 AND pg_sleep(0.0001) IS NOT NULL});
	$node->poll_query_until('postgres', q{
		SELECT sum(chunks) > 2 FROM quickstep.shared_scans})
	  or die 'the victim took no chunk';
	return $h;
}

{
	my $m = parked_member();
	my $v = slow_scanner();
	ok($node->safe_psql('postgres', q{
		SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'victim'}),
		'scanner terminated mid-circle');
	$v->finish;
	$node->poll_query_until('postgres', q{
		SELECT count(*) = 0 FROM pg_stat_activity WHERE application_name = 'victim'})
	  or die 'the victim did not exit';
	is($node->safe_psql('postgres', 'SELECT members FROM quickstep.shared_scans'), '1',
		'terminated: its slot is free');
	finish_member($m, 'terminated scanner');
}

# kill -9 restarts every backend (the parked member too): afterwards shared
# scans join and answer as before
{
	my $v = slow_scanner();
	my $vpid = $node->safe_psql('postgres',
		q{SELECT pid FROM pg_stat_activity WHERE application_name = 'victim'});
	my $logpos = -s $node->logfile;
	kill 'KILL', $vpid;
	$v->finish;
	qs_wait_reinit($node, $logpos);
	is($node->safe_psql('postgres', 'SELECT count(*) FROM quickstep.shared_scans'), '0',
		'kill -9: the registry is empty after the restart');
	my $m = parked_member();
	my ($out, $err) = scanner('off');
	is($out, "100000|5000050000\n", 'kill -9: a scanner after the restart has its rows');
	finish_member($m, 'after kill -9');
}

$node->stop;
done_testing();
