# A streaming standby replays csbtree's generic WAL: it answers index scans
# with the primary's rows, before and after page splits and VACUUM.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use QsTest;

my $primary = qs_new_node('csb_primary', allows_streaming => 1);
$primary->start;
$primary->safe_psql('postgres', q{
	CREATE EXTENSION quickstep_am;
	CREATE TABLE t (k int, s text);
	INSERT INTO t SELECT i, 'row' || i FROM generate_series(1, 20000) i;
	CREATE INDEX t_k ON t USING csbtree (k);
	CREATE INDEX t_s ON t USING csbtree (s);
});
$primary->backup('bk');

my $standby = PostgreSQL::Test::Cluster->new('csb_standby');
$standby->init_from_backup($primary, 'bk', has_streaming => 1);
$standby->start;

my $q = q{SELECT count(*), coalesce(sum(k), 0) FROM t WHERE k BETWEEN 500 AND 150000};
my $force = 'SET enable_seqscan = off; SET enable_bitmapscan = off; ';

sub same_on_standby
{
	my ($label) = @_;
	$primary->wait_for_catchup($standby, 'replay', $primary->lsn('insert'));
	my $p = $primary->safe_psql('postgres', $q);
	is($standby->safe_psql('postgres', $force . $q), $p, "$label: standby index scan agrees with the primary");
	like($standby->safe_psql('postgres', $force . "EXPLAIN (COSTS OFF) $q"),
		qr/Index (Only )?Scan using t_k/, "$label: the standby used the csbtree index");
	is($standby->safe_psql('postgres', $force . q{SELECT count(*) FROM t WHERE s = 'row777'}),
		$primary->safe_psql('postgres', q{SELECT count(*) FROM t WHERE s = 'row777'}),
		"$label: text index agrees");
	# The standby's index must be the primary's: same leaf entries (VACUUM
	# may keep dead entries a snapshot still needs, so not count(*) of t).
	is($standby->safe_psql('postgres', q{SELECT leaf_tuples FROM quickstep.check_index('t_k')}),
		$primary->safe_psql('postgres', q{SELECT leaf_tuples FROM quickstep.check_index('t_k')}),
		"$label: check_index on the standby is clean and matches the primary's index");
}

same_on_standby('after the base backup');

# Inserts that split pages (and grow the root), replayed from WAL.
$primary->safe_psql('postgres',
	q{INSERT INTO t SELECT (i * 7919) % 150000, 'new' || i FROM generate_series(1, 60000) i});
same_on_standby('after 60000 inserts with splits');

# VACUUM's deletions are replayed too.
$primary->safe_psql('postgres', q{DELETE FROM t WHERE k % 4 = 0; VACUUM (INDEX_CLEANUP ON) t});
same_on_standby('after DELETE and VACUUM');

# Page deletion and recycling: a range DELETE empties whole leaves; VACUUM
# unlinks them (one WAL record each), a second VACUUM, once an xid has
# completed, puts them in the free space map, and new inserts reuse them.
my $pages = $primary->safe_psql('postgres', q{SELECT pages FROM quickstep.check_index('t_k')});
my $size = $primary->safe_psql('postgres', q{SELECT pg_relation_size('t_k')});
$primary->safe_psql('postgres', q{DELETE FROM t WHERE k BETWEEN 1000 AND 120000});
$primary->safe_psql('postgres', q{VACUUM (INDEX_CLEANUP ON) t});
same_on_standby('after VACUUM deleted emptied leaves');
cmp_ok($standby->safe_psql('postgres', q{SELECT pages FROM quickstep.check_index('t_k')}),
	'<', $pages / 2, 'the standby replayed the page deletions');
$primary->safe_psql('postgres', q{SELECT pg_current_xact_id()});
$primary->safe_psql('postgres', q{VACUUM (INDEX_CLEANUP ON) t});
$primary->safe_psql('postgres',
	q{INSERT INTO t SELECT 1000 + (i * 7919) % 119000, 'again' || i FROM generate_series(1, 40000) i});
same_on_standby('after inserts into recycled pages');
cmp_ok($primary->safe_psql('postgres', q{SELECT pg_relation_size('t_k')}), '<=', $size,
	'the inserts reused the deleted pages instead of growing the index');

# REINDEX: a new relfilenode built with full-page records.
$primary->safe_psql('postgres', q{REINDEX INDEX t_k});
same_on_standby('after REINDEX');

$standby->stop;
$primary->stop;
done_testing();
