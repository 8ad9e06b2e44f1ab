# A TAKEN mark cancels no hot standby query (issue 12, THE RULE; design
# step B, src/merge/README.md §2).  A REPEATABLE READ transaction older
# than a merge updates and deletes rows the merge moved, through the
# merge's link: their delta versions are marked TAKEN.  The mark used to
# freeze the rows' inserter's xmin and log a recovery conflict for it, so
# a standby query whose snapshot did not see that inserter was cancelled
# (hot_standby_feedback off, max_standby_streaming_delay 0) where heap's
# update logs none.  Now the mark keeps the inserter's xmin and logs no
# conflict: the standby's old snapshot keeps reading, and sees exactly what
# it saw before; new snapshots on the standby see the primary's rows.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use QsTest;

my $node = qs_new_node('taken_primary', allows_streaming => 1);
$node->append_conf('postgresql.conf', qq{
quickstep.merge_workers = 0
autovacuum = off
});
$node->start;
$node->safe_psql('postgres', q{
	CREATE EXTENSION quickstep_am;
	CREATE TABLE c (id int, v int) USING quickstep_column
		WITH (quickstep.rows_per_block = 5000);
	CREATE TABLE h (id int, v int);
	INSERT INTO c SELECT g, g FROM generate_series(1, 100) g;
	INSERT INTO h SELECT g, g FROM generate_series(1, 100) g;
	CREATE FUNCTION merge_moved(r regclass) RETURNS boolean LANGUAGE plpgsql AS $$
	BEGIN
		FOR i IN 1..600 LOOP
			IF quickstep.merge(r) > 0 THEN RETURN true; END IF;
			PERFORM pg_sleep(0.05);
		END LOOP;
		RETURN false;
	END $$;
});
$node->backup('b');
my $standby = PostgreSQL::Test::Cluster->new('taken_standby');
$standby->init_from_backup($node, 'b', has_streaming => 1);
$standby->append_conf('postgresql.conf', qq{
hot_standby_feedback = off
max_standby_streaming_delay = 0
});
$standby->start;
$node->wait_for_catchup($standby);

my $rows = q{SELECT count(*) || ' ' || sum(v) FROM c};
my $heap = q{SELECT count(*) || ' ' || sum(v) FROM h};

# 1. the standby's old snapshot: it sees the first 100 rows only
my $old = $standby->background_psql('postgres', on_error_stop => 0);
$old->query_safe('BEGIN ISOLATION LEVEL REPEATABLE READ');
is($old->query_safe($rows), '100 5050', 'the standby snapshot reads 100 rows');

# 2. rows it does not see, the same in both tables; a merge moves them
#    (the primary knows nothing of the standby's snapshot)
$node->safe_psql('postgres', q{
	SET quickstep.column_delta_rows = 100000;
	INSERT INTO c SELECT g, g FROM generate_series(101, 400) g;
	INSERT INTO h SELECT g, g FROM generate_series(101, 400) g;
});
my $t = $node->background_psql('postgres');
$t->query_safe('BEGIN ISOLATION LEVEL REPEATABLE READ');
$t->query_safe('SELECT count(*) FROM c');
is($node->safe_psql('postgres', q{SELECT merge_moved('c')}), 't', 'a merge moved the rows');

# 3. the older transaction changes moved rows through the link: TAKEN marks
$t->query_safe(q{UPDATE c SET v = v + 1000 WHERE id BETWEEN 101 AND 150});
$t->query_safe(q{UPDATE h SET v = v + 1000 WHERE id BETWEEN 101 AND 150});
$t->query_safe(q{DELETE FROM c WHERE id BETWEEN 151 AND 160});
$t->query_safe(q{DELETE FROM h WHERE id BETWEEN 151 AND 160});
is($t->query_safe($rows), $t->query_safe($heap),
	'the taker counts each row once (its own changes, not the taken versions)');
$t->query_safe('COMMIT');
$t->quit;
$node->wait_for_catchup($standby);

# 4. the standby's old snapshot is not cancelled and reads what it read
#    (a cancelled idle transaction loses its connection: psql dies)
my ($out, $ret) = eval { $old->query($rows) };
ok(defined $ret && $ret == 0, 'the standby query older than the inserter is not cancelled')
  or diag('standby: ' . ($@ || $out // ''));
is($out, '100 5050', 'and still reads its 100 rows');
eval { $old->query('COMMIT'); $old->quit; };
like($standby->safe_psql('postgres',
		q{SELECT count(*) FROM pg_stat_database_conflicts WHERE datname = 'postgres' AND confl_snapshot > 0}),
	qr/^0$/, 'no snapshot conflict was counted on the standby');

# 5. new snapshots, on both servers, see the primary's rows
my $want = $node->safe_psql('postgres', $heap);
is($node->safe_psql('postgres', $rows), $want, 'the primary holds the heap twin\'s rows');
is($standby->safe_psql('postgres', $rows), $want, 'the standby holds them too');
is($node->safe_psql('postgres', q{SELECT quickstep.check_table('c') > 0}), 't',
	'check_table is clean');

$standby->stop;
$node->stop;
done_testing();
