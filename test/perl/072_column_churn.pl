# Column tables against heap, randomized (issue 12): rounds of loads of
# random sizes (COPY and INSERT … SELECT, into the delta and into blocks)
# with NULLs, mixed value widths (empty to TOASTed), NaN / -0 / infinities,
# committed, rolled back or rolled back to a savepoint, DELETE, UPDATE (of
# indexed and other columns) and FOR UPDATE / SHARE / KEY SHARE of main and
# delta rows (the delete map), between ADD/DROP
# COLUMN, VACUUM (FREEZE), ANALYZE, TRUNCATE and quickstep.merge() (committed,
# rolled back, followed by DML of the moved rows in its own transaction) —
# the same statements on a heap table and on a column table.  After every round both hold the same
# multiset of rows and quickstep.check_table() finds the column table
# sound.  QS_CHURN_SEED repeats a run, QS_COL_CHURN_ROUNDS lengthens it
# (make stress runs 300 rounds).
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use QsTest;

my $seed = $ENV{QS_CHURN_SEED} || time();
my $rounds = $ENV{QS_COL_CHURN_ROUNDS} || 20;
srand($seed);
note("seed $seed, $rounds rounds");

my $node = qs_new_node('column_churn');
$node->append_conf('postgresql.conf', "max_wal_size = 1GB\nautovacuum = off\n");
$node->start;
my $file = $node->basedir . '/batch.copy';
$node->safe_psql('postgres', q{
	CREATE EXTENSION quickstep_am;
	CREATE TABLE h (i int, b bigint, t text, n numeric, f float8, ok bool,
	                by bytea, d date, ts timestamptz, arr int[]);
	CREATE TABLE c (LIKE h) USING quickstep_column;
	CREATE INDEX c_i ON c (i);
});

my @extra;			# columns added so far (name)
my $ncol = 0;

# a batch of $n random rows in table s, columns as h has them now
sub make_batch
{
	my ($n) = @_;
	my $s = int(rand(1_000_000));
	my @nf = map { rand() < 0.3 ? 0 : rand() * 0.6 } 1 .. 10;
	my $maxw = (0, 5, 40, 300, 3000, 30000)[ int(rand(6)) ];
	my @gen = (
		"(random() * 2e9 - 1e9)::int",
		"(random() * 9e18 - 4.5e18)::bigint",
		"repeat(md5(random()::text), (random() * $maxw / 32)::int) || left(md5(random()::text), (random() * 31)::int)",
		"round((random() * 1e6)::numeric, (random() * 6)::int) * CASE WHEN random() < 0.5 THEN 1 ELSE 10 END",
		"(ARRAY['NaN', '-0', 'Infinity', '-Infinity', '0', (random() * 1e10 - 5e9)::text, (random() - 0.5)::text])[1 + (random() * 6)::int]::float8",
		"random() < 0.5",
		"decode(repeat(md5(random()::text), (random() * 3)::int), 'hex')",
		"date '2000-01-01' + (random() * 20000)::int",
		"timestamptz '2020-01-01' + random() * interval '900 days'",
		"CASE WHEN random() < 0.5 THEN ARRAY[(random() * 100)::int, NULL] ELSE '{}'::int[] END");
	my @sel;
	for my $k (1 .. 10)
	{
		push @sel, "CASE WHEN random() < $nf[$k - 1] THEN NULL ELSE $gen[$k - 1] END AS c$k";
	}
	push @sel, map { "CASE WHEN random() < 0.5 THEN NULL ELSE 'x' || (random() * 10)::int END AS $_" } @extra;
	my $list = join(", ", @sel);
	$node->safe_psql('postgres', qq{
		DROP TABLE IF EXISTS s;
		SELECT setseed(0.$s);
		CREATE TABLE s AS SELECT $list FROM generate_series(1, $n);
		COPY s TO '$file';
	});
}

sub compare
{
	my ($what) = @_;
	my $r = $node->safe_psql('postgres', q{
		SELECT (SELECT count(*) FROM (SELECT x::text FROM c x EXCEPT ALL SELECT y::text FROM h y) a),
		       (SELECT count(*) FROM (SELECT y::text FROM h y EXCEPT ALL SELECT x::text FROM c x) b),
		       (SELECT count(*) FROM c), (SELECT count(*) FROM h),
		       quickstep.check_table('c') >= (SELECT count(*) FROM c)});
	my ($d1, $d2, $nc, $nh, $chk) = split /\|/, $r;
	if ($d1 ne '0' || $d2 ne '0' || $nc ne $nh || $chk ne 't')
	{
		fail("$what: column table = heap table and sound (seed $seed): $r");
		return 0;
	}
	return 1;
}

my $failed = 0;
for my $round (1 .. $rounds)
{
	my $op = rand();
	my $what;
	if ($op < 0.45)
	{
		my $n = (0, 1, 700, 1000, 1001, 2500, 9000, 20000)[ int(rand(8)) ];
		make_batch($n);
		my $via = rand() < 0.5 ? "COPY c FROM '$file'" : "INSERT INTO c SELECT * FROM s";
		my $end = rand();
		if ($end < 0.6)
		{
			$node->safe_psql('postgres', qq{BEGIN; INSERT INTO h SELECT * FROM s; $via; COMMIT;});
			$what = "load $n rows ($via)";
		}
		elsif ($end < 0.8)
		{
			$node->safe_psql('postgres', qq{BEGIN; INSERT INTO h SELECT * FROM s; $via; ROLLBACK;});
			$what = "rolled back load of $n rows";
		}
		else
		{
			$node->safe_psql('postgres', qq{BEGIN; SAVEPOINT a; $via; INSERT INTO h SELECT * FROM s;
				ROLLBACK TO a; $via; INSERT INTO h SELECT * FROM s; COMMIT;});
			$what = "load of $n rows after a savepoint rollback";
		}
	}
	elsif ($op < 0.65)
	{
		# DELETE / UPDATE / row locks of the same rows of both tables, main
		# rows (virtual TIDs, the delete map) and delta rows alike
		my $k = (2, 3, 7, 50)[ int(rand(4)) ];
		my $r = int(rand($k));
		my $pred = "i %% $k = $r";	# %% : the statements go through sprintf
		my @dml = (
			"DELETE FROM %s WHERE $pred",
			"UPDATE %s SET t = coalesce(t, '') || 'u', b = b + 1 WHERE $pred",
			"UPDATE %s SET i = i + 1 WHERE $pred",
			"UPDATE %s SET i = i WHERE $pred",
			"SELECT count(*) FROM (SELECT 1 FROM %s WHERE $pred FOR UPDATE) l",
			"SELECT count(*) FROM (SELECT 1 FROM %s WHERE $pred FOR KEY SHARE) l",
			"SELECT count(*) FROM (SELECT 1 FROM %s WHERE $pred FOR SHARE) l");
		my $stmt = $dml[ int(rand(@dml)) ];
		my $stmt2 = $dml[ int(rand(@dml)) ];
		my $end = rand();
		my $sql;
		my ($sc, $sh) = (sprintf($stmt, 'c'), sprintf($stmt, 'h'));
		my ($sc2, $sh2) = (sprintf($stmt2, 'c'), sprintf($stmt2, 'h'));
		if ($end < 0.5)
		{
			$sql = "BEGIN; $sh; $sc; $sh2; $sc2; COMMIT;";
			$what = "committed: $stmt; $stmt2";
		}
		elsif ($end < 0.75)
		{
			$sql = "BEGIN; $sh; $sc; ROLLBACK;";
			$what = "rolled back: $stmt";
		}
		else
		{
			$sql = "BEGIN; $sh; $sc; SAVEPOINT a; $sh2; $sc2; ROLLBACK TO a; $sh2; $sc2; COMMIT;";
			$what = "savepoint: $stmt; rolled back and redone $stmt2";
		}
		$node->safe_psql('postgres', $sql);
	}
	elsif ($op < 0.73)
	{
		$node->safe_psql('postgres', (rand() < 0.5 ? 'VACUUM (FREEZE) c' : 'VACUUM c') . '; ANALYZE c');
		$what = 'VACUUM / ANALYZE';
	}
	elsif ($op < 0.80 && @extra < 3)
	{
		my $col = 'e' . ++$ncol;
		my $def = rand() < 0.5 ? "DEFAULT 'd$ncol'" : '';
		$node->safe_psql('postgres', qq{ALTER TABLE h ADD COLUMN $col text $def;
			ALTER TABLE c ADD COLUMN $col text $def;});
		push @extra, $col;
		$what = "ADD COLUMN $col $def";
	}
	elsif ($op < 0.85 && @extra)
	{
		my $col = shift @extra;
		$node->safe_psql('postgres', qq{ALTER TABLE h DROP COLUMN $col; ALTER TABLE c DROP COLUMN $col;});
		$what = "DROP COLUMN $col";
	}
	elsif ($op < 0.87)
	{
		$node->safe_psql('postgres', q{TRUNCATE h; TRUNCATE c;});
		$what = 'TRUNCATE';
	}
	elsif ($op < 0.95)
	{
		# the merge (src/merge): committed, rolled back, in a rolled-back
		# savepoint, and followed in its own transaction by DML of the rows
		# it moved (our own moves: the main copies are the rows; refused
		# unless quickstep.debug_merge_hold is on, which is checked too)
		my $k = (2, 3, 7)[ int(rand(3)) ];
		my $pred = "i % $k = " . int(rand($k));
		my @v = (
			["SELECT quickstep.merge('c');", 'merge'],
			["BEGIN; SELECT quickstep.merge('c'); ROLLBACK;", 'rolled back merge'],
			["BEGIN; SAVEPOINT a; SELECT quickstep.merge('c'); ROLLBACK TO a; COMMIT;",
			 'merge in a rolled-back savepoint'],
			["BEGIN ISOLATION LEVEL REPEATABLE READ;
			  SET LOCAL quickstep.debug_merge_hold = on; SELECT quickstep.merge('c');
			  UPDATE c SET t = coalesce(t, '') || 'm', b = b - 1 WHERE $pred;
			  UPDATE h SET t = coalesce(t, '') || 'm', b = b - 1 WHERE $pred;
			  DELETE FROM c WHERE $pred AND ok; DELETE FROM h WHERE $pred AND ok; COMMIT;",
			 'merge, then DML of moved rows in its transaction'],
			["BEGIN; SET LOCAL quickstep.debug_merge_hold = on;
			  UPDATE c SET b = b + 7 WHERE $pred; UPDATE h SET b = b + 7 WHERE $pred;
			  SELECT quickstep.merge('c'); SAVEPOINT s; DELETE FROM c WHERE $pred; ROLLBACK TO s;
			  SELECT quickstep.merge('c'); COMMIT;",
			 'DML, merge, rolled-back delete, merge again in one transaction'],
			["BEGIN; SELECT quickstep.merge('c');
			  DELETE FROM c WHERE $pred; DELETE FROM h WHERE $pred; COMMIT;",
			 'merge, then a statement on the table: refused if it moved rows', 1]);
		my $pick = $v[ int(rand(@v)) ];
		if ($pick->[2])
		{
			# refused (all rolled back) when the merge moved rows; when it
			# moved none (an autovacuum snapshot held them back) both
			# deletes run
			my ($ret, $out, $err) = $node->psql('postgres', $pick->[0]);
			if ($out =~ /^([1-9]\d*)$/m)
			{
				like($err,
					qr/cannot read or change table "c" after quickstep\.merge\(\) of it in the same transaction/,
					"round $round: a statement after merge() is refused");
			}
			else
			{
				is($err, '', "round $round: merge() moved nothing, the deletes ran");
			}
		}
		else
		{
			$node->safe_psql('postgres', $pick->[0]);
		}
		$what = $pick->[1];
	}
	else
	{
		# an index scan over everything agrees with the heap's rows
		my $r = $node->safe_psql('postgres', q{
			SET enable_seqscan = off; SET enable_bitmapscan = off;
			SELECT count(*), sum(i::int8) FROM c WHERE i > -2000000000});
		my $e = $node->safe_psql('postgres', q{SELECT count(*), sum(i::int8) FROM h WHERE i > -2000000000});
		if ($r ne $e) { fail("index scan: $r, heap $e (seed $seed)"); $failed++; last; }
		# bitmap scans (exact, and lossy in 64 kB of work_mem) agree too
		for my $wm ('4MB', '64kB')
		{
			$r = $node->safe_psql('postgres', qq{
				SET enable_seqscan = off; SET enable_indexscan = off; SET work_mem = '$wm';
				SELECT count(*), sum(i::int8) FROM c WHERE i > -2000000000});
			if ($r ne $e) { fail("bitmap scan ($wm): $r, heap $e (seed $seed)"); $failed++; last; }
		}
		# and a TID range scan over everything returns every row
		$r = $node->safe_psql('postgres', q{
			SELECT count(*) FROM c WHERE ctid >= '(0,0)' AND ctid <= '(4294967294,65535)'});
		$e = $node->safe_psql('postgres', q{SELECT count(*) FROM h});
		if ($r ne $e) { fail("TID range scan: $r, heap $e (seed $seed)"); $failed++; last; }
		$what = 'index, bitmap and TID range scans';
	}
	if (!compare("round $round: $what"))
	{
		$failed++;
		last;
	}
}
is($failed, 0, "$rounds rounds of loads, aborts, DDL and maintenance: the column table always equals the heap table (seed $seed)");

$node->stop;
done_testing();
