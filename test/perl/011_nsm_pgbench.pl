# A row layout (quickstep_nsm, or $ENV{QS_AM} when another test file runs
# this one with "do") under concurrency: pgbench (TPC-B-like: concurrent updates
# of hot rows, inserts, index scans) with autovacuum working on the same
# tables; afterwards the books balance, indexes agree with the tables and
# check_table is clean.
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

my $node = qs_new_node("${tag}_pgbench");
$node->append_conf('postgresql.conf', q{
autovacuum_naptime = 1s
autovacuum_vacuum_threshold = 50
autovacuum_vacuum_scale_factor = 0
autovacuum_analyze_threshold = 50
autovacuum_analyze_scale_factor = 0
max_connections = 30
});
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION quickstep_am');
$node->safe_psql('postgres',
	"ALTER DATABASE postgres SET default_table_access_method = $am");

my $conn = '-h ' . $node->host . ' -p ' . $node->port;
$node->pgbench("-i -s 1 $conn", 0, [qr/^$/], [qr/done in/], "pgbench -i on $am", {}, 'postgres');
is($node->safe_psql('postgres', q{
	SELECT string_agg(a.amname, ',' ORDER BY c.relname) FROM pg_class c JOIN pg_am a ON a.oid = c.relam
	 WHERE c.relname LIKE 'pgbench_%' AND c.relkind = 'r'}),
	join(',', ($am) x 4),
	"the pgbench tables use $am");

$node->pgbench("-c 6 -j 2 -T 8 $conn", 0,
	[qr/number of failed transactions: 0 /, qr/processed: [1-9]/],
	[qr/^(starting vacuum\.\.\.end\.\n)?$/],
	'pgbench runs without errors', {}, 'postgres');

is($node->safe_psql('postgres', q{
	SELECT (SELECT sum(abalance) FROM pgbench_accounts) = (SELECT sum(bbalance) FROM pgbench_branches)
	   AND (SELECT sum(bbalance) FROM pgbench_branches) = (SELECT sum(tbalance) FROM pgbench_tellers)
	   AND (SELECT sum(tbalance) FROM pgbench_tellers) = (SELECT coalesce(sum(delta), 0) FROM pgbench_history)}),
	't', 'the books balance after concurrent updates');
is($node->safe_psql('postgres', q{SELECT count(*) FROM pgbench_accounts}), '100000',
	'no account row lost or duplicated');
is($node->safe_psql('postgres', q{
	SET enable_seqscan = off; SET enable_bitmapscan = off;
	SELECT count(*), sum(abalance) FROM pgbench_accounts WHERE aid > 0}),
	$node->safe_psql('postgres', q{SELECT count(*), sum(abalance) FROM pgbench_accounts}),
	'the primary key index agrees with the table');
ok($node->poll_query_until('postgres', q{
	SELECT count(*) > 0 FROM pg_stat_user_tables
	 WHERE relname IN ('pgbench_branches', 'pgbench_tellers') AND autovacuum_count > 0}),
	'autovacuum vacuumed the hot tables');
is($node->safe_psql('postgres', q{
	SELECT bool_and(quickstep.check_table(c.oid) >= 0) FROM pg_class c
	 WHERE c.relname LIKE 'pgbench_%' AND c.relkind = 'r'}),
	't', 'check_table is clean on every pgbench table');
ok($node->safe_psql('postgres', q{
	SELECT max(age(relfrozenxid)) FROM pg_class WHERE relname = 'pgbench_accounts'}) > 1000,
	'before VACUUM FREEZE relfrozenxid of pgbench_accounts lags the pgbench run');
$node->safe_psql('postgres', 'VACUUM (FREEZE, ANALYZE)');
is($node->safe_psql('postgres', q{
	SELECT count(*) FROM pg_class c WHERE c.relname LIKE 'pgbench_%' AND c.relkind = 'r'
	   AND age(c.relfrozenxid) < 100}),
	'4', 'a database-wide VACUUM FREEZE advances relfrozenxid of every quickstep table');
# Row locks under concurrency: foreign-key checks (FOR KEY SHARE) of a few
# hot parent rows, non-key updates of those rows beside them (multixacts),
# an update rolled back to a savepoint, FOR SHARE; with autovacuum pruning
# and vacuuming the same tables.
$node->safe_psql('postgres', q{
	CREATE TABLE fkp (id int PRIMARY KEY, n int NOT NULL DEFAULT 0);
	CREATE TABLE fkc (p int NOT NULL REFERENCES fkp, c int);
	INSERT INTO fkp SELECT generate_series(1, 20);
});
$node->pgbench("-n -c 6 -j 2 -T 6 $conn", 0,
	[qr/number of failed transactions: 0 /, qr/processed: [1-9]/], [qr/^$/],
	'concurrent FK checks, non-key updates and savepoints run without errors',
	{
		'nsm_fk' => q{
\set p random(1, 20)
\set c random(1, 1000000)
BEGIN;
INSERT INTO fkc VALUES (:p, :c);
UPDATE fkp SET n = n + 1 WHERE id = :p;
SAVEPOINT s;
UPDATE fkp SET n = n + 100 WHERE id = :p;
ROLLBACK TO s;
SELECT n FROM fkp WHERE id = :p FOR SHARE;
COMMIT;
}
	}, 'postgres');
is($node->safe_psql('postgres', q{
	SELECT (SELECT sum(n) FROM fkp) = (SELECT count(*) FROM fkc)}),
	't', 'every committed transaction counted once, rolled-back savepoints never');
is($node->safe_psql('postgres', q{
	SELECT count(*) FROM fkc WHERE p NOT IN (SELECT id FROM fkp)}),
	'0', 'no orphan child row');
$node->safe_psql('postgres', 'VACUUM fkp, fkc');
is($node->safe_psql('postgres', q{
	SELECT quickstep.check_table('fkp') = 20 AND quickstep.check_table('fkc') = (SELECT count(*) FROM fkc)}),
	't', 'check_table is clean and counts only live records after VACUUM');

$node->stop;
done_testing();
