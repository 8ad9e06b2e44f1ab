# Concurrent DML on the main rows of a column table (issue 12, the delete
# map): accounts bulk-loaded into column blocks, then pgbench clients
# transfer between random accounts (READ COMMITTED, REPEATABLE READ and
# SERIALIZABLE, retried on serialization failures and deadlocks as an
# application would), lock rows FOR KEY SHARE / FOR UPDATE SKIP LOCKED,
# delete-and-reinsert accounts, and VACUUM runs between them, while
# REPEATABLE READ readers check that the total never changes under their
# snapshot, by sequential and by index scans.  Afterwards: the total and
# the number of accounts are what they were, every account exists once,
# index and sequential scans agree, check_table is clean, and the same
# holds after a crash and recovery.  Everything the clients do is checked
# against what heap guarantees: no error but the retried ones.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use QsTest;

my $node = qs_new_node('column_dml_concurrent');
$node->append_conf('postgresql.conf',
	"max_wal_size = 1GB\nmax_connections = 40\nautovacuum = off\n");
$node->start;

my $n = 20000;					# accounts that transfer
my $spare = 2000;				# accounts (balance 0) deleted and inserted again
my $all = $n + $spare;
my $total = $n * 100;
my $dir = $node->basedir;
$node->safe_psql('postgres', qq{
	CREATE EXTENSION quickstep_am;
	CREATE TABLE acc (id int, bal int, note text) USING quickstep_column;
	INSERT INTO acc SELECT i, CASE WHEN i <= $n THEN 100 ELSE 0 END, 'n' || i
	  FROM generate_series(1, $all) i;
	CREATE UNIQUE INDEX acc_id ON acc (id);
});
my $main = $node->safe_psql('postgres',
	q{SELECT count(*) FROM acc WHERE (ctid::text::point)[0] >= 2147483648});
cmp_ok($main, '>', $all / 2, "most accounts are main rows ($main of $all)");

sub script
{
	my ($name, $body) = @_;
	open my $f, '>', "$dir/$name.sql" or die;
	print $f $body;
	close $f;
	return "-f $dir/$name.sql";
}

# transfers: lower id first, so that two transfers never deadlock on order
my $transfer = <<"EOS";
\\set a random(1, $n)
\\set b random(1, $n)
\\set lo least(:a, :b)
\\set hi greatest(:a, :b)
BEGIN ISOLATION LEVEL %s;
UPDATE acc SET bal = bal - 1 WHERE id = :lo;
UPDATE acc SET bal = bal + 1, note = note || '' WHERE id = :hi;
END;
EOS
my @scripts = (
	script('transfer_rc', sprintf($transfer, 'READ COMMITTED')) . '@6',
	script('transfer_rr', sprintf($transfer, 'REPEATABLE READ')) . '@3',
	script('transfer_ser', sprintf($transfer, 'SERIALIZABLE')) . '@2',
	script('lockers', <<"EOS") . '@2',
\\set a random(1, $n)
BEGIN;
SELECT count(*) FROM (SELECT 1 FROM acc WHERE id BETWEEN :a AND :a + 20 FOR KEY SHARE) x;
SELECT count(*) FROM (SELECT 1 FROM acc WHERE id BETWEEN :a AND :a + 5 FOR UPDATE SKIP LOCKED) x;
UPDATE acc SET note = 'k' WHERE id = :a;
END;
EOS
	# a spare account's row deleted and inserted again (into the delta)
	script('reinsert', <<"EOS") . '@2',
\\set a random($n + 1, $all)
BEGIN;
WITH d AS (DELETE FROM acc WHERE id = :a RETURNING *) INSERT INTO acc SELECT * FROM d;
END;
EOS
	script('read_rr', <<"EOS") . '@2',
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT sum(bal) AS s1, count(*) AS c1 FROM acc \\gset
SELECT pg_sleep(0.02);
SET LOCAL enable_seqscan = off;
SET LOCAL enable_bitmapscan = off;
SELECT sum(bal) AS s2, count(*) AS c2 FROM acc WHERE id > 0 \\gset
SELECT CASE WHEN :s1 = $total AND :s2 = $total AND :c1 = $all AND :c2 = $all THEN 1 ELSE 1 / 0 END;
END;
EOS
	script('vacuum', "VACUUM acc;\n") . '@1');

$node->pgbench("-n -c 8 -j 2 -t 150 --max-tries=100 " . join(' ', @scripts),
	0, [qr/processed: 1200\/1200/], [qr/^$/],
	'concurrent transfers, locks, reinserts, VACUUM and readers: no error, every reader check holds');

sub check_all
{
	my ($when) = @_;
	is($node->safe_psql('postgres', 'SELECT sum(bal), count(*), count(DISTINCT id) FROM acc'),
		"$total|$all|$all", "$when: total, count and distinct accounts unchanged");
	is($node->safe_psql('postgres', q{
		SET enable_seqscan = off; SET enable_bitmapscan = off;
		SELECT sum(bal), count(*) FROM acc WHERE id > 0}),
		"$total|$all", "$when: index scan agrees");
	is($node->safe_psql('postgres', q{SELECT quickstep.check_table('acc') > 0}), 't',
		"$when: check_table is clean");
}
check_all('after the run');
my $moved = $node->safe_psql('postgres',
	q{SELECT count(*) FROM acc WHERE (ctid::text::point)[0] < 2147483648});
cmp_ok($moved, '>', 0, "updated accounts live in the delta now ($moved)");

$node->safe_psql('postgres', 'VACUUM acc');
check_all('after VACUUM');

# the delete map is WAL-logged: a crash keeps every committed change
$node->safe_psql('postgres', q{UPDATE acc SET bal = bal + 1 WHERE id = 1; UPDATE acc SET bal = bal - 1 WHERE id = 2;
	WITH d AS (DELETE FROM acc WHERE id = 3 RETURNING *) INSERT INTO acc SELECT id, bal, 'back' FROM d});
$node->stop('immediate');
$node->start;
check_all('after a crash');
$node->safe_psql('postgres', 'VACUUM FREEZE acc');
check_all('after VACUUM FREEZE');

# write skew through index fetches of main rows: two SERIALIZABLE
# transactions each read two on-call doctors and each takes one off; heap
# fails one of them with a serialization failure, so must a column table
# (the index fetch of a main row takes a predicate lock on its TID)
$node->safe_psql('postgres', q{
	CREATE TABLE doc (id int, oncall bool) USING quickstep_column;
	INSERT INTO doc SELECT i, true FROM generate_series(1, 5000) i;
	CREATE INDEX doc_id ON doc (id);});
is($node->safe_psql('postgres', q{SELECT count(*) FROM doc WHERE id IN (4001, 4002) AND ctid >= '(2147483648,0)'}),
	'2', 'the doctors are main rows');
my $s1 = $node->background_psql('postgres');
my $s2 = $node->background_psql('postgres');
my $sees = q{SET enable_seqscan = off; SET enable_bitmapscan = off;
	SELECT count(*) FROM doc WHERE id IN (4001, 4002) AND oncall;};
$s1->query_safe('BEGIN ISOLATION LEVEL SERIALIZABLE');
$s2->query_safe('BEGIN ISOLATION LEVEL SERIALIZABLE');
is($s1->query_safe($sees), '2', 'session 1 sees two doctors on call');
is($s2->query_safe($sees), '2', 'session 2 sees two doctors on call');
my ($ok1, $ok2) = (1, 1);
eval { $s1->query_safe('UPDATE doc SET oncall = false WHERE id = 4001'); };
$ok1 = 0 if $@;
eval { $s2->query_safe('UPDATE doc SET oncall = false WHERE id = 4002'); };
$ok2 = 0 if $@;
eval { $s1->query_safe('COMMIT'); };
$ok1 = 0 if $@;
eval { $s2->query_safe('COMMIT'); };
$ok2 = 0 if $@;
is($ok1 + $ok2, 1, 'one of the two SERIALIZABLE transactions fails (no write skew)');
is($node->safe_psql('postgres', q{SELECT count(*) FROM doc WHERE id IN (4001, 4002) AND oncall}),
	'1', 'one doctor stays on call');
eval { $s1->quit; };
eval { $s2->quit; };

$node->stop;
done_testing();
