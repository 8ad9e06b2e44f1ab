# NOWAIT and SKIP LOCKED against a merge that is committing (issue 12, the
# rule's case (c), src/merge/README.md): a row the merge moved is locked
# once the merge's commit is visible, as heap would lock it at once -- not
# skipped, no "could not obtain lock on row".  The merge is held at its
# pre-commit (interlock taken, commit record not yet written) by
# quickstep.debug_merge_commit_wait until a session holding advisory lock
# (7401, 4) is terminated; the locker waits for it for up to
# quickstep.merge_commit_wait.  With that bound at 0 the locker finds the
# row locked, as before the wait existed.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;
use FindBin;
use lib $FindBin::RealBin;
use QsTest;

my $node = qs_new_node('merge_commit_wait');
# no background merge: this test decides when merges run
$node->append_conf('postgresql.conf', "quickstep.merge_workers = 0\n");
$node->start;
$node->safe_psql('postgres', q{
	CREATE EXTENSION quickstep_am;
	CREATE TABLE c (id int PRIMARY KEY, v int) USING quickstep_column
		WITH (quickstep.rows_per_block = 5000);
	ALTER TABLE c SET (autovacuum_enabled = off);
	CREATE FUNCTION merge_moved(r regclass) RETURNS boolean LANGUAGE plpgsql AS $$
	BEGIN
		FOR i IN 1..600 LOOP
			IF quickstep.merge(r) > 0 THEN RETURN true; END IF;
			PERFORM pg_sleep(0.05);
		END LOOP;
		RETURN false;
	END $$;
});

sub psql_start
{
	my ($sql, $out, $err) = @_;
	return IPC::Run::start(
		[ 'psql', '-X', '-A', '-t', '-h', $node->host, '-p', $node->port, '-d', 'postgres',
		  '-c', $sql ],
		'>', $out, '2>', $err);
}

# One round: a fresh batch of delta rows, a merge held at its pre-commit,
# then LOCKER (a SELECT ... FOR UPDATE of row FIRST) run with the bound
# WAIT_MS; the hold ends once the locker polls (or at once when it cannot).
# Returns the locker's output and errors.
sub round
{
	my ($first, $locker, $wait_ms) = @_;
	my ($hout, $herr, $mout, $merr, $lout, $lerr) = ('', '', '', '', '', '');

	$node->safe_psql('postgres', qq{
		SET quickstep.column_delta_rows = 100000;
		INSERT INTO c SELECT g, g % 7 FROM generate_series($first, $first + 299) g});
	my $holder = psql_start(
		q{SET application_name = 'holder'; SELECT pg_advisory_lock(7401, 4), pg_sleep(600)},
		\$hout, \$herr);
	$node->poll_query_until('postgres', q{
		SELECT count(*) = 1 FROM pg_locks WHERE locktype = 'advisory' AND objid = 4 AND granted})
	  or die 'the holder did not lock';
	my $merge = psql_start(
		q{SET quickstep.column_delta_rows = 100000; SET quickstep.debug_merge_commit_wait = on;
		  SELECT merge_moved('c')}, \$mout, \$merr);
	$node->poll_query_until('postgres', q{
		SELECT count(*) = 1 FROM pg_locks WHERE locktype = 'advisory' AND objid = 4 AND NOT granted})
	  or die 'the merge did not reach its pre-commit';

	my $l = psql_start(
		"SET application_name = 'locker'; SET quickstep.merge_commit_wait = '$wait_ms';"
		  . " BEGIN; $locker; COMMIT;", \$lout, \$lerr);
	# (a locker that does not wait ends with the merge still held)
	if ($wait_ms > 0)
	{
		$node->poll_query_until('postgres', q{
			SELECT count(*) = 0 FROM pg_stat_activity
			WHERE application_name = 'locker' AND wait_event IS DISTINCT FROM 'PgSleep'})
		  or die 'the locker neither waited for the merge nor ended';
	}
	else
	{
		$l->finish;
	}
	$node->safe_psql('postgres',
		q{SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'holder'});
	$holder->finish;
	$merge->finish;
	like($mout, qr/^t$/m, "merge of rows $first..: moved rows") or diag($merr);
	$l->finish;
	return ($lout, $lerr);
}

my ($out, $err) = round(1,
	'SELECT id FROM c WHERE id = 1 FOR UPDATE SKIP LOCKED', '30s');
like($out, qr/^1$/m, 'SKIP LOCKED: the row of a committing merge is returned');
is($err, '', 'SKIP LOCKED: no error');

($out, $err) = round(301, 'SELECT id FROM c WHERE id = 301 FOR UPDATE NOWAIT', '30s');
like($out, qr/^301$/m, 'NOWAIT: the row of a committing merge is locked');
is($err, '', 'NOWAIT: no "could not obtain lock on row"');

# the job-queue form: the first row not locked by anyone
($out, $err) = round(601,
	'SELECT id FROM c WHERE id >= 601 ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED', '30s');
like($out, qr/^601$/m, 'SKIP LOCKED LIMIT 1: the first row, not the next');
is($err, '', 'SKIP LOCKED LIMIT 1: no error');

# with no time to wait the merge's commit still holds the row
($out, $err) = round(901, 'SELECT id FROM c WHERE id = 901 FOR UPDATE NOWAIT', '0');
like($err, qr/could not obtain lock on row/, 'bound 0: NOWAIT finds the row locked as before');

is($node->safe_psql('postgres', q{SELECT count(*), sum(id) FROM c}), '1200|720600',
	'every row once');
is($node->safe_psql('postgres', q{SELECT quickstep.check_table('c') >= 1200}), 't',
	'check_table clean');

$node->stop;
done_testing();
