# Logical replication of quickstep tables (issue 18): a publisher and a
# subscriber, tables of every row layout on both sides, pgbench writing to
# all of them (updates, deletes, COPY-free inserts, ON CONFLICT, TOASTed
# rows), the publisher killed with SIGKILL in the middle of the load and
# restarted; at the end the subscriber holds exactly the publisher's rows.
# Covers replica identity DEFAULT (primary key), FULL and USING INDEX, a
# publication with a row filter and a column list, pg_recvlogical, and that
# below wal_level = logical no logical record is written.
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

my @layouts = qw(nsm pax hpl);

my $pub = qs_new_node('decode_pub', allows_streaming => 'logical');
$pub->append_conf('postgresql.conf', q{
autovacuum_naptime = 1s
autovacuum_vacuum_threshold = 50
autovacuum_vacuum_scale_factor = 0
max_connections = 40
});
$pub->start;
# wal_level stays replica on the subscriber: its writes need no logical record
my $sub = qs_new_node('decode_sub', allows_streaming => 1);
$sub->append_conf('postgresql.conf', 'max_logical_replication_workers = 8');
$sub->start;
is($sub->safe_psql('postgres', 'SHOW wal_level'), 'replica', 'the subscriber runs at wal_level = replica');

# Per layout L, the same tables on both sides:
#   acc_L   primary key (replica identity DEFAULT), updated
#   full_L  no key, REPLICA IDENTITY FULL, updated, deleted, inserted
#   ri_L    REPLICA IDENTITY USING INDEX on a unique column, which moves
#   up_L    INSERT ... ON CONFLICT DO UPDATE on a few hot keys
#   toast_L 20 kB values stored out of line: inserted, updated with the
#           value unchanged and replaced, deleted
#   flt_L   published with a row filter and a column list; its replica
#           identity (id, grp) covers the filter's column, as a filter on
#           an updated table requires
my $ddl = '';
for my $l (@layouts)
{
	$ddl .= qq{
CREATE TABLE acc_$l (aid int PRIMARY KEY, abalance int NOT NULL, filler text) USING quickstep_$l;
CREATE TABLE full_$l (a int NOT NULL, b int, c text) USING quickstep_$l;
ALTER TABLE full_$l REPLICA IDENTITY FULL;
CREATE TABLE ri_$l (a int, b int NOT NULL, c text) USING quickstep_$l;
CREATE UNIQUE INDEX ri_${l}_b ON ri_$l (b);
ALTER TABLE ri_$l REPLICA IDENTITY USING INDEX ri_${l}_b;
CREATE TABLE up_$l (k int PRIMARY KEY, n int NOT NULL, t text) USING quickstep_$l;
CREATE TABLE toast_$l (id int PRIMARY KEY, n int NOT NULL, body text) USING quickstep_$l;
CREATE TABLE flt_$l (id int PRIMARY KEY, grp int NOT NULL, v text, secret text) USING quickstep_$l;
CREATE UNIQUE INDEX flt_${l}_idgrp ON flt_$l (id, grp);
ALTER TABLE flt_$l REPLICA IDENTITY USING INDEX flt_${l}_idgrp;
};
}
for my $node ($pub, $sub)
{
	$node->safe_psql('postgres', 'CREATE EXTENSION quickstep_am');
	$node->safe_psql('postgres', 'CREATE EXTENSION pg_walinspect');
	$node->safe_psql('postgres', $ddl);
}
$pub->safe_psql('postgres', q{
CREATE FUNCTION big(seed int) RETURNS text LANGUAGE sql IMMUTABLE AS
  $$ SELECT string_agg(md5((seed * 1000 + g)::text), '') FROM generate_series(1, 640) g $$;
CREATE SEQUENCE full_seq START 100000;
});

# initial contents, copied by the subscription's table synchronization
my $init = '';
for my $l (@layouts)
{
	$init .= qq{
INSERT INTO acc_$l SELECT g, 0, repeat('x', 80) FROM generate_series(1, 5000) g;
INSERT INTO full_$l SELECT g, g, md5(g::text) FROM generate_series(1, 500) g;
INSERT INTO ri_$l SELECT g, g, 'r' || g FROM generate_series(1, 1000) g;
INSERT INTO toast_$l SELECT g, 0, big(g) FROM generate_series(1, 20) g;
INSERT INTO flt_$l SELECT g, g % 5, 'v' || g, 's' || g FROM generate_series(1, 1000) g;
};
}
$pub->safe_psql('postgres', $init);

my $all = join(', ', map { ("acc_$_", "full_$_", "ri_$_", "up_$_", "toast_$_") } @layouts);
my $flt = join(', ', map { "flt_$_ (id, grp, v) WHERE (grp <> 0)" } @layouts);
$pub->safe_psql('postgres', "CREATE PUBLICATION pub_all FOR TABLE $all");
$pub->safe_psql('postgres', "CREATE PUBLICATION pub_flt FOR TABLE $flt");
my $pubconn = $pub->connstr . ' dbname=postgres';
$sub->safe_psql('postgres',
	"CREATE SUBSCRIPTION sub CONNECTION '$pubconn' PUBLICATION pub_all, pub_flt");
$sub->wait_for_subscription_sync($pub, 'sub');

# Every table's contents, in a canonical order; flt_L as published.
sub contents
{
	my ($node, $published) = @_;
	my %h;
	for my $l (@layouts)
	{
		for my $t ("acc_$l", "full_$l", "ri_$l", "up_$l", "toast_$l")
		{
			$h{$t} = $node->safe_psql('postgres',
				"SELECT count(*) || ':' || coalesce(md5(string_agg(x::text, '|' ORDER BY x::text)), '') FROM $t x");
		}
		my $f = $published
		  ? "SELECT id, grp, v FROM flt_$l WHERE grp <> 0"
		  : "SELECT id, grp, v FROM flt_$l";
		$h{"flt_$l"} = $node->safe_psql('postgres',
			"SELECT count(*) || ':' || coalesce(md5(string_agg(x::text, '|' ORDER BY x::text)), '') FROM ($f) x");
	}
	return \%h;
}

sub compare
{
	my ($what) = @_;
	my $p = contents($pub, 1);
	my $s = contents($sub, 0);
	for my $t (sort keys %$p)
	{
		is($s->{$t}, $p->{$t}, "$what: $t on the subscriber equals the publisher's");
	}
}

compare('after the initial copy');
is($sub->safe_psql('postgres', q{SELECT count(*) FROM flt_nsm WHERE secret IS NOT NULL OR grp = 0}),
	'0', 'the column list leaves secret out and the row filter rows of group 0');

# the pgbench script: every table of every layout
my $dir = PostgreSQL::Test::Utils::tempdir;
my $script = "$dir/decode_load.sql";
open(my $fh, '>', $script) or die "open $script: $!";
print $fh q{\set aid random(1, 5000)
\set delta random(-5000, 5000)
\set a random(1, 500)
\set b random(1, 1000)
\set k random(1, 8)
\set tid random(1, 40)
\set f random(1, 1000)
\set g random(0, 4)
BEGIN;
};
for my $l (@layouts)
{
	print $fh qq{UPDATE acc_$l SET abalance = abalance + :delta WHERE aid = :aid;
UPDATE full_$l SET c = md5(random()::text) WHERE a = :a;
DELETE FROM full_$l WHERE a = :a + 1 AND :delta > 3000;
INSERT INTO full_$l SELECT nextval('full_seq'), :delta, 'new' FROM (SELECT 1) s WHERE :delta < -3000;
UPDATE ri_$l SET c = c || '.' WHERE b = :b;
UPDATE ri_$l SET b = b + 100000, a = a + 1 WHERE b = :b AND :delta > 4000;
INSERT INTO up_$l VALUES (:k, 1, 'ins') ON CONFLICT (k) DO UPDATE SET n = up_$l.n + 1, t = 'upd';
INSERT INTO toast_$l VALUES (:tid, 0, big(:tid + :delta)) ON CONFLICT (id) DO UPDATE SET body = excluded.body WHERE :delta > 0;
UPDATE toast_$l SET n = n + 1 WHERE id = :tid + 1;
DELETE FROM toast_$l WHERE id = :tid + 2 AND :delta < -4000;
UPDATE flt_$l SET grp = :g, v = v || '.' WHERE id = :f;
};
}
print $fh "COMMIT;\n";
close $fh;

my @pgbench = ('pgbench', '-n', '-f', $script, '-h', $pub->host, '-p', $pub->port);

# a load, then SIGKILL of the publisher in its middle
my ($out, $err) = ('', '');
my $load = IPC::Run::start([ @pgbench, '-c', '4', '-j', '2', '-t', '100000', 'postgres' ],
	'>', \$out, '2>', \$err);
ok($pub->poll_query_until('postgres', q{SELECT sum(n) >= 300 FROM up_nsm}),
	'the load is under way');
crash_and_restart($pub);
$load->finish;
note "pgbench stopped by the crash: $err";
like($err, qr/(terminat|connection|server closed|lost|died)/i, 'pgbench lost its connections to the killed publisher');

# more load after the restart, ending normally
($out, $err) = ('', '');
IPC::Run::run([ @pgbench, '-c', '4', '-j', '2', '-t', '150', 'postgres' ],
	'>', \$out, '2>', \$err);
like($out, qr/number of transactions actually processed: 600\/600/, 'pgbench after the restart: every transaction committed');

$pub->wait_for_catchup('sub');
compare('after the crash and the load');
ok($pub->safe_psql('postgres', q{SELECT count(*) FROM up_nsm}) > 0, 'upserts inserted rows');
ok($pub->safe_psql('postgres', q{SELECT sum(n) > count(*) FROM up_pax}), 'upserts took the DO UPDATE path');
ok($pub->safe_psql('postgres', q{SELECT count(*) FROM ri_hpl WHERE b > 100000}) > 0,
	'rows moved their replica identity key');
ok($pub->safe_psql('postgres', q{SELECT count(*) FROM flt_pax WHERE grp = 0}) > 0,
	'the load moved rows out of and into the row filter');

# Below wal_level = logical nothing is written for decoding: the
# subscriber applies ten updates through the quickstep AMs without one
# logical record, while the publisher wrote one per row.
my $pub_lsn = $pub->safe_psql('postgres', 'SELECT pg_current_wal_lsn()');
my $sub_lsn = $sub->safe_psql('postgres', 'SELECT pg_current_wal_lsn()');
$pub->safe_psql('postgres', 'UPDATE acc_hpl SET abalance = abalance + 1 WHERE aid <= 10');
$pub->wait_for_catchup('sub');
is($pub->safe_psql('postgres', qq{
	SELECT count(*) FROM pg_get_wal_records_info('$pub_lsn', pg_current_wal_flush_lsn())
	 WHERE resource_manager = 'quickstep' AND record_type = 'LOGICAL' AND description LIKE 'UPDATE%'}),
	'10', 'the publisher wrote one logical record per updated row');
# (the apply worker commits asynchronously: flush its WAL before reading it)
$sub->safe_psql('postgres', 'CHECKPOINT');
is($sub->safe_psql('postgres', qq{
	SELECT count(*) FILTER (WHERE resource_manager = 'quickstep' AND record_type = 'LOGICAL')
	       || ' ' || (count(*) FILTER (WHERE resource_manager = 'Generic') >= 10)
	  FROM pg_get_wal_records_info('$sub_lsn', pg_current_wal_flush_lsn())}),
	'0 true', 'the wal_level = replica subscriber applied the updates without a logical record');
is($sub->safe_psql('postgres', 'SELECT sum(abalance) FROM acc_hpl WHERE aid <= 10'),
	$pub->safe_psql('postgres', 'SELECT sum(abalance) FROM acc_hpl WHERE aid <= 10'),
	'and holds their result');

# pg_recvlogical sees quickstep tables as heap tables
$pub->safe_psql('postgres',
	q{SELECT 'init' FROM pg_create_logical_replication_slot('recv', 'test_decoding')});
$pub->safe_psql('postgres', q{
	CREATE TABLE recv_heap (id int PRIMARY KEY, body text) USING heap;
	CREATE TABLE recv_pax (id int PRIMARY KEY, body text) USING quickstep_pax;
});
for my $t (qw(recv_heap recv_pax))
{
	$pub->safe_psql('postgres', qq{
		INSERT INTO $t SELECT g, CASE WHEN g % 10 = 0 THEN big(g) ELSE 'b' || g END FROM generate_series(1, 100) g;
		UPDATE $t SET body = body || '!' WHERE id % 7 = 0;
		DELETE FROM $t WHERE id % 9 = 0;
		INSERT INTO $t VALUES (5, 'dup') ON CONFLICT (id) DO UPDATE SET body = excluded.body;
	});
}
my $endpos = $pub->safe_psql('postgres', 'SELECT pg_current_wal_lsn()');
my $stream = $pub->pg_recvlogical_upto('postgres', 'recv', $endpos, $PostgreSQL::Test::Utils::timeout_default,
	'include-xids' => '0', 'skip-empty-xacts' => '1');
my @heap_lines = grep { /^table public\.recv_heap: / } split /\n/, $stream;
my @pax_lines = grep { /^table public\.recv_pax: / } split /\n/, $stream;
s/recv_heap/T/ for @heap_lines;
s/recv_pax/T/ for @pax_lines;
ok(@heap_lines > 100, 'pg_recvlogical decoded the heap table');
is(join("\n", @pax_lines), join("\n", @heap_lines),
	'pg_recvlogical decodes the quickstep_pax table exactly as the heap table');
$pub->safe_psql('postgres', q{SELECT pg_drop_replication_slot('recv')});

# A change that cannot be decoded (simulated by the test-only setting)
# stops the walsender with an error naming the table and the reason.
my $log_offset = -s $pub->logfile;
$pub->safe_psql('postgres', q{
	SET quickstep.debug_undecodable = on;
	INSERT INTO acc_nsm VALUES (100000, 0, 'undecodable');
});
ok($pub->wait_for_log(
		qr/ERROR:  cannot decode a change to quickstep table "public\.acc_nsm": quickstep\.debug_undecodable is on/,
		$log_offset),
	'the walsender fails with an error naming the table and the reason');
is($sub->safe_psql('postgres', 'SELECT count(*) FROM acc_nsm WHERE aid = 100000'), '0',
	'the subscriber did not get the change');

$sub->stop;
$pub->stop;
done_testing();
