# Column tables, storage layer (issue 12, first stage): COPY into main
# blocks, read back by sequential, parallel and index scans exactly as heap
# returns the same rows; aborted loads leave nothing visible; crash
# recovery, UNLOGGED reset and a streaming standby replay the runs and the
# directory; damaged run pages and metapages raise ERRCODE_DATA_CORRUPTED
# (XX001) naming the block, never a crash.
#
# The access method is not registered by the extension yet (UPDATE/DELETE
# of main rows need the delete map, src/column/README.md section 11): the
# test creates it over the library's handler itself.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(usleep);
use FindBin;
use lib $FindBin::RealBin;
use QsTest;

my $node = qs_new_node('column_storage', allows_streaming => 1);
$node->append_conf('postgresql.conf', "max_wal_size = 1GB\n");
$node->start;

my $copyfile = $node->basedir . '/rows.copy';
$node->safe_psql('postgres', qq{
	CREATE EXTENSION quickstep_am;
	CREATE TABLE h (id int, g bigint, t text, n numeric, f float8, ts timestamptz,
	                u uuid, b bool, by bytea, arr int[], p point, j json, big text);
	INSERT INTO h
	SELECT i, i % 17, CASE WHEN i % 9 = 0 THEN NULL ELSE 'k' || (i % 250) END,
	       CASE WHEN i % 20 < 10 THEN ((i % 10)::text)::numeric
	            ELSE ((i % 10)::text || '.000')::numeric END,
	       CASE WHEN i % 11 = 0 THEN '-0'::float8 WHEN i % 13 = 0 THEN 'NaN' ELSE i / 7.0 END,
	       '2020-01-01'::timestamptz + i * interval '17 s',
	       md5(i::text)::uuid, i % 3 = 0, decode(md5(i::text), 'hex'),
	       ARRAY[i, i % 5], point(i, -i), json_build_object('i', i),
	       CASE WHEN i % 40000 = 7 THEN repeat(md5(i::text), 40000) END
	FROM generate_series(1, 120000) i;
	COPY h TO '$copyfile';
	CREATE TABLE c (LIKE h) USING quickstep_column;
	COPY c FROM '$copyfile';
});

# same rows, both ways, as a multiset (text forms: point and json have no =)
# and the checker finds the table sound (metapage, directory, runs, every
# block image's bytes and order; delta pages)
sub same_as_heap
{
	my ($n, $what, $rel) = @_;
	$rel //= 'c';
	my $q = qq{SELECT (SELECT count(*) FROM (SELECT x::text FROM $rel x EXCEPT ALL SELECT y::text FROM h y) a),
	                  (SELECT count(*) FROM (SELECT y::text FROM h y EXCEPT ALL SELECT x::text FROM $rel x) b),
	                  (SELECT count(*) FROM $rel),
	                  quickstep.check_table('$rel') >= 120000};
	is($n->safe_psql('postgres', $q), "0|0|120000|t", $what);
}

same_as_heap($node, 'COPY into main: every row and value as heap has it');
is($node->safe_psql('postgres', q{SELECT delta_rows, main_rows, deleted_rows, blocks, sealed_blocks, merges
	FROM quickstep.column_stats WHERE relid = 'c'::regclass}), '1000|119000|0|1|1|0',
	'column_stats: the first 1000 rows in the delta, the others in one sealed block');
is($node->safe_psql('postgres', q{SELECT state, rows, encoding, min, max FROM quickstep.blocks('c')
	WHERE column_name = 'id'}), 'sealed|119000|for_delta|1001|120000',
	'blocks(): the id column of the block, its encoding, min and max');
is($node->safe_psql('postgres', q{SELECT count(*) FROM quickstep.blocks('c')}), '13',
	'blocks(): a row per column of each block');
ok($node->safe_psql('postgres', q{SELECT pg_relation_size('c') < pg_relation_size('h')}) eq 't',
	'the column table is smaller than the heap table');
is($node->safe_psql('postgres', q{SELECT count(*) FROM c WHERE f::text = '-0'}),
	$node->safe_psql('postgres', q{SELECT count(*) FROM h WHERE f::text = '-0'}),
	'float -0 keeps its sign (no dictionary for types whose equal values differ)');
is($node->safe_psql('postgres', q{SELECT string_agg(DISTINCT n::text, ',' ORDER BY n::text) FROM c WHERE n = 3}),
	'3,3.000', 'numeric keeps its scale');
is($node->safe_psql('postgres', q{SELECT md5(big) FROM c WHERE id = 7}),
	$node->safe_psql('postgres', q{SELECT md5(big) FROM h WHERE id = 7}),
	'a 1.3 MB value (TOASTed in heap) comes back whole');

# ANALYZE samples main rows (a run page stands for its share of its
# block's rows): the table's row count and column statistics come out as
# heap's, and so do the planner's estimates
$node->safe_psql('postgres', 'ANALYZE c; ANALYZE h');
my $rt = $node->safe_psql('postgres', q{SELECT reltuples FROM pg_class WHERE relname = 'c'});
ok(abs($rt - 120000) < 6000, "ANALYZE counts main rows (reltuples $rt of 120000)");
is($node->safe_psql('postgres', q{SELECT n_distinct, null_frac > 0.1 FROM pg_stats WHERE tablename = 'c' AND attname = 'g'}),
	$node->safe_psql('postgres', q{SELECT n_distinct, null_frac > 0.1 FROM pg_stats WHERE tablename = 'h' AND attname = 'g'}),
	'ANALYZE: a low-cardinality column has heap\'s distinct count');
my ($est) = $node->safe_psql('postgres', q{EXPLAIN SELECT * FROM c WHERE g = 3}) =~ /rows=(\d+)/;
ok(abs($est - 120000 / 17) < 120000 / 17 * 0.2, "the planner estimates g = 3 from those statistics ($est rows)");

# INSERT … SELECT and CREATE TABLE AS load row by row into main blocks too
$node->safe_psql('postgres', q{
	CREATE TABLE ci (LIKE h) USING quickstep_column;
	INSERT INTO ci SELECT * FROM h;
	CREATE TABLE cas USING quickstep_column AS SELECT * FROM h;
});
same_as_heap($node, 'INSERT … SELECT into main', 'ci');
same_as_heap($node, 'CREATE TABLE AS into main', 'cas');
is($node->safe_psql('postgres', q{
	BEGIN; INSERT INTO ci SELECT * FROM ci; SELECT count(*) FROM ci; ROLLBACK;
	SELECT count(*) FROM ci}), "240000
120000",
	'a self-insert reads only the rows before it, and rolls back');

# parallel sequential scan: every main block once
is($node->safe_psql('postgres', q{
	SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0;
	SET min_parallel_table_scan_size = 0; SET max_parallel_workers_per_gather = 2;
	SELECT count(*), sum(id), sum(g) FROM c}),
	$node->safe_psql('postgres', q{SELECT count(*), sum(id), sum(g) FROM h}),
	'parallel seq scan sees every row once');

# index builds over main rows, serial and parallel, and index scans
$node->safe_psql('postgres', q{
	CREATE INDEX c_id ON c (id);
	SET max_parallel_maintenance_workers = 0;
	CREATE UNIQUE INDEX c_u ON c (u);
	CREATE INDEX c_t ON c (t);
});
for my $pred ("id = 99999", "id BETWEEN 500 AND 1500", "u = md5('4242')::uuid", "t = 'k17'", "t IS NULL AND id < 5000")
{
	my $q = "SELECT count(*), sum(id), md5(string_agg(x::text, ',' ORDER BY id))";
	is($node->safe_psql('postgres', qq{SET enable_seqscan = off; SET enable_bitmapscan = off;
		$q FROM c x WHERE $pred}),
		$node->safe_psql('postgres', qq{$q FROM h x WHERE $pred}),
		"index scan: $pred");
}
# bitmap scans over delta and main rows: exact pages, lossy pages (64 kB
# of work_mem), BitmapOr and BitmapAnd; TID range scans inside main
for my $case (["4MB", "id BETWEEN 500 AND 1500 OR t = 'k17'"],
	["64kB", "id BETWEEN 500 AND 90000 AND t >= 'k5'"], ["64kB", "id < 50000 OR t IS NULL"])
{
	my ($wm, $pred) = @$case;
	my $q = "SELECT count(*), sum(id), md5(string_agg(x::text, ',' ORDER BY id))";
	my $set = "SET enable_seqscan = off; SET enable_indexscan = off; SET work_mem = '$wm';";
	like($node->safe_psql('postgres', qq{$set EXPLAIN (COSTS OFF) $q FROM c x WHERE $pred}),
		qr/Bitmap Heap Scan on c/, "bitmap scan planned: $pred");
	is($node->safe_psql('postgres', qq{$set $q FROM c x WHERE $pred}),
		$node->safe_psql('postgres', qq{$q FROM h x WHERE $pred}),
		"bitmap scan ($wm of work_mem): $pred");
}
for my $range (["(2147483648,100)", "(2147483650,7)"], ["(0,1)", "(2147487744,0)"],
	["(2147483650,300)", "(2147483651,0)"])
{
	my ($lo, $hi) = @$range;
	my $q = qq{SELECT count(*), min(ctid), max(ctid), sum(id) FROM c WHERE ctid >= '$lo' AND ctid < '$hi'};
	like($node->safe_psql('postgres', "EXPLAIN (COSTS OFF) $q"), qr/Tid Range Scan/, "TID range scan planned: $lo .. $hi");
	is($node->safe_psql('postgres', $q),
		$node->safe_psql('postgres', "SET enable_tidscan = off; $q"),
		"TID range scan = filtered sequential scan: $lo .. $hi");
}

# VACUUM FULL and CLUSTER: rows visible to everybody compacted into new
# blocks, dead rows gone, a snapshot older than the rewrite still sees
# what it saw (recently dead rows and newer versions keep their headers)
{
	$node->safe_psql('postgres', q{
		CREATE TABLE cf (LIKE h) USING quickstep_column; INSERT INTO cf SELECT * FROM h;
		CREATE TABLE hf AS SELECT * FROM h; CREATE TABLE other (x int); INSERT INTO other VALUES (1);
		CREATE INDEX cf_g ON cf (g);});
	my $q = q{SELECT count(*), sum(id), count(*) FILTER (WHERE t = 'new'), md5(string_agg(x::text, ',' ORDER BY id))};
	my $orig = $node->safe_psql('postgres', "$q FROM hf x");
	my $rr = $node->background_psql('postgres');
	$rr->query_safe(q{BEGIN ISOLATION LEVEL REPEATABLE READ; SELECT * FROM other});
	for my $t ('cf', 'hf')
	{
		$node->safe_psql('postgres', qq{DELETE FROM $t WHERE id % 10 = 0; UPDATE $t SET t = 'new' WHERE id % 10 = 1});
	}
	my $size0 = $node->safe_psql('postgres', q{SELECT pg_relation_size('cf')});
	$node->safe_psql('postgres', 'VACUUM FULL cf');
	is($rr->query_safe("$q FROM cf x"), $orig,
		'VACUUM FULL: a snapshot older than the DELETE, UPDATE and rewrite sees the rows it saw');
	$rr->query_safe('COMMIT');
	eval { $rr->quit; };
	is($node->safe_psql('postgres', "$q FROM cf x"), $node->safe_psql('postgres', "$q FROM hf x"),
		'VACUUM FULL: the table equals heap afterwards');
	$node->safe_psql('postgres', 'VACUUM FULL cf');
	is($node->safe_psql('postgres', q{SELECT count(*) FILTER (WHERE ctid < '(2147483648,0)') FROM cf}), '0',
		'a second VACUUM FULL, with no older snapshot left, puts every row into blocks');
	cmp_ok($node->safe_psql('postgres', q{SELECT pg_relation_size('cf')}), '<', $size0,
		'and the table is smaller than before the rewrites');
	$node->safe_psql('postgres', 'CLUSTER cf USING cf_g');
	is($node->safe_psql('postgres', "$q FROM cf x"), $node->safe_psql('postgres', "$q FROM hf x"),
		'CLUSTER: the table equals heap');
	is($node->safe_psql('postgres', q{SELECT count(*) FROM (SELECT g < lag(g) OVER (ORDER BY ctid) AS back FROM cf) s WHERE back}),
		'0', 'CLUSTER: rows come back in the index order');
	is($node->safe_psql('postgres', q{SET enable_seqscan = off; SELECT count(*), sum(id) FROM cf WHERE g = 3}),
		$node->safe_psql('postgres', q{SELECT count(*), sum(id) FROM hf WHERE g = 3}), 'CLUSTER: its indexes are rebuilt');
	is($node->safe_psql('postgres', q{SELECT quickstep.check_table('cf') > 0}), 't', 'CLUSTER: check_table is clean');
}

# a scrollable cursor: backward over main rows and into the delta
{
	my $fw = $node->safe_psql('postgres', q{BEGIN;
		DECLARE k SCROLL CURSOR FOR SELECT id FROM c;
		FETCH ALL FROM k; COMMIT});
	my $bw = $node->safe_psql('postgres', q{BEGIN;
		DECLARE k SCROLL CURSOR FOR SELECT id FROM c;
		MOVE FORWARD ALL IN k; FETCH BACKWARD ALL FROM k; COMMIT});
	is(join(',', reverse split /\n/, $bw), join(',', split /\n/, $fw),
		'FETCH BACKWARD ALL returns the rows of FETCH ALL in reverse');
	is($node->safe_psql('postgres', q{BEGIN;
		DECLARE k SCROLL CURSOR FOR SELECT id FROM c;
		MOVE ABSOLUTE 1000 IN k; FETCH 2 FROM k; FETCH PRIOR FROM k; FETCH PRIOR FROM k;
		MOVE ABSOLUTE 60000 IN k; FETCH PRIOR FROM k; FETCH NEXT FROM k; COMMIT}),
		$node->safe_psql('postgres', q{BEGIN;
		DECLARE k SCROLL CURSOR FOR SELECT id FROM h;
		MOVE ABSOLUTE 1000 IN k; FETCH 2 FROM k; FETCH PRIOR FROM k; FETCH PRIOR FROM k;
		MOVE ABSOLUTE 60000 IN k; FETCH PRIOR FROM k; FETCH NEXT FROM k; COMMIT}),
		'a cursor moving both ways across the delta/main border sees what heap shows');
}

# TABLESAMPLE over delta pages and main rows' virtual pages
is($node->safe_psql('postgres', q{SELECT count(*), sum(id) FROM c TABLESAMPLE SYSTEM (100)}),
	$node->safe_psql('postgres', q{SELECT count(*), sum(id) FROM h}), 'TABLESAMPLE SYSTEM (100) returns every row');
is($node->safe_psql('postgres', q{SELECT count(*), sum(id) FROM c TABLESAMPLE BERNOULLI (100)}),
	$node->safe_psql('postgres', q{SELECT count(*), sum(id) FROM h}), 'TABLESAMPLE BERNOULLI (100) returns every row');
is($node->safe_psql('postgres', q{SELECT count(*) FROM c TABLESAMPLE SYSTEM (0)}), '0', 'SYSTEM (0) returns none');
{
	my $q = q{SELECT count(*), sum(id) FROM c TABLESAMPLE BERNOULLI (20) REPEATABLE (7)};
	my $a = $node->safe_psql('postgres', $q);
	is($node->safe_psql('postgres', $q), $a, 'REPEATABLE samples the same rows again');
	my ($n) = split /\|/, $a;
	cmp_ok(abs($n - 24000), '<', 2400, "BERNOULLI (20) samples about a fifth of the rows ($n of 120000)");
	like($node->safe_psql('postgres', q{SELECT count(*) FILTER (WHERE ctid >= '(2147483648,0)') > 1000
		FROM c TABLESAMPLE SYSTEM (30) REPEATABLE (3)}), qr/^t$/, 'SYSTEM samples pages of main rows');
}

my ($ret, $out, $err) = $node->psql('postgres', qq{COPY c FROM '$copyfile'});
like($err, qr/duplicate key value violates unique constraint "c_u"/,
	'a unique index built over main rows refuses a second load');

# aborted and rolled-back loads leave nothing visible
$node->safe_psql('postgres', qq{
	DROP INDEX c_u;
	BEGIN; COPY c FROM '$copyfile'; ROLLBACK;
	BEGIN; SAVEPOINT s; COPY c FROM '$copyfile'; ROLLBACK TO s; COMMIT;
});
same_as_heap($node, 'rolled-back loads are invisible');
is($node->safe_psql('postgres', qq{
	BEGIN; COPY c FROM '$copyfile'; SELECT count(*) FROM c; ROLLBACK;}),
	'240000', 'the loader sees its own load before commit');

# VACUUM gives the run of an aborted load back (here: truncated, it was last)
{
	$node->safe_psql('postgres', qq{CREATE TABLE cr (LIKE h) USING quickstep_column;
		COPY cr FROM '$copyfile'});
	my $size = sub { $node->safe_psql('postgres', q{SELECT pg_relation_size('cr')}) };
	my $s1 = $size->();
	$node->safe_psql('postgres', qq{BEGIN; COPY cr FROM '$copyfile'; ROLLBACK;});
	my $s2 = $size->();
	# an autovacuum ANALYZE of another table may hold the horizon back for
	# a moment (the reclaim waits for it): VACUUM again until it passed
	my $s3;
	for my $try (1 .. 60)
	{
		$node->safe_psql('postgres', 'VACUUM cr');
		$s3 = $size->();
		last if $s3 < $s1 + ($s2 - $s1) / 4;
		sleep 1;
	}
	ok($s2 > $s1 * 1.5 && $s3 < $s1 + ($s2 - $s1) / 4,
		"VACUUM reclaims an aborted load's run ($s1 -> $s2 -> $s3 bytes)");
	same_as_heap($node, 'and the table keeps its rows', 'cr');
	$node->safe_psql('postgres', qq{BEGIN; INSERT INTO cr SELECT * FROM h; ROLLBACK;});
	$node->safe_psql('postgres', qq{COPY cr FROM '$copyfile'});
	$node->safe_psql('postgres', 'VACUUM cr');
	is($node->safe_psql('postgres', q{SELECT count(*), quickstep.check_table('cr') >= count(*) FROM cr}),
		'240000|t', 'a run reclaimed between two blocks leaves every row and a clean checker');
}

# crash: a committed load survives, an uncommitted one disappears
my $bg = $node->background_psql('postgres');
$bg->query_safe(qq{BEGIN; COPY c FROM '$copyfile';});
crash_and_restart($node);
eval { $bg->quit; };
same_as_heap($node, 'after a crash: the committed load is whole, the open one gone');

# VACUUM freezes the loaders' xids in the directory (relfrozenxid may then
# pass them) and keeps every row; as on heap, xmin keeps showing the
# loaders (src/column/README.md 4.1)
my $xmins = q{SELECT xmin, count(*) FROM c GROUP BY xmin ORDER BY xmin::text::bigint};
my $before_freeze = $node->safe_psql('postgres', $xmins);
$node->safe_psql('postgres', 'VACUUM (FREEZE) c');
same_as_heap($node, 'VACUUM FREEZE keeps every row');
is($node->safe_psql('postgres', $xmins), $before_freeze,
	'VACUUM FREEZE keeps every row\'s xmin (the loaders\', as heap keeps them)');
ok($node->safe_psql('postgres', q{
	SELECT age(relfrozenxid) < 5 FROM pg_class WHERE relname = 'c'}) eq 't',
	'relfrozenxid advanced');

# UNLOGGED: reset to the init fork's metapage, then usable again
$node->safe_psql('postgres', qq{
	CREATE UNLOGGED TABLE cu (LIKE h) USING quickstep_column;
	COPY cu FROM '$copyfile';
	CHECKPOINT;
});
crash_and_restart($node);
is($node->safe_psql('postgres', q{SELECT count(*) FROM cu}), '0',
	'an UNLOGGED column table is empty after a crash');
$node->safe_psql('postgres', qq{COPY cu FROM '$copyfile'});
same_as_heap($node, 'and takes a load again', 'cu');

# TRUNCATE (new relfilenode, and in the creating transaction)
$node->safe_psql('postgres', qq{
	BEGIN;
	CREATE TABLE ct (LIKE h) USING quickstep_column;
	COPY ct FROM '$copyfile';
	TRUNCATE ct;
	COPY ct FROM '$copyfile';
	COMMIT;
	CREATE TABLE ct2 (LIKE h) USING quickstep_column;
	COPY ct2 FROM '$copyfile';
	TRUNCATE ct2;
	COPY ct2 FROM '$copyfile';
});
# rows still buffered for a block when the table is dropped go with it
$node->safe_psql('postgres', q{
	CREATE TABLE cdrop (LIKE h) USING quickstep_column;
	BEGIN;
	CREATE TABLE cdrop2 (LIKE h) USING quickstep_column;
	INSERT INTO cdrop2 SELECT * FROM h;
	INSERT INTO cdrop SELECT * FROM h;
	DROP TABLE cdrop2;
	DROP TABLE cdrop;
	COMMIT;
});
is($node->safe_psql('postgres', q{SELECT count(*) FROM pg_class WHERE relname LIKE 'cdrop%'}), '0',
	'a transaction that loads and drops its tables commits');
same_as_heap($node, 'TRUNCATE in the creating transaction', 'ct');
same_as_heap($node, 'TRUNCATE of a committed table', 'ct2');

# columns added after the load read their default in main rows
$node->safe_psql('postgres', q{
	ALTER TABLE ct2 ADD COLUMN extra int DEFAULT 42;
	ALTER TABLE ct2 DROP COLUMN g;
});
is($node->safe_psql('postgres', q{SELECT count(*), min(extra), max(extra) FROM ct2}),
	'120000|42|42', 'ADD COLUMN: main rows read the missing value');

# pg_dump and restore: the access method, the table and its rows (COPY
# into main blocks again), compared with heap in the restored database
{
	my $dump = $node->basedir . '/column.dump';
	$node->command_ok(['pg_dump', '-d', $node->connstr('postgres'), '-f', $dump],
		'pg_dump of a database with a column table');
	$node->safe_psql('postgres', 'CREATE DATABASE restored');
	$node->command_ok(['psql', '-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d',
			$node->connstr('restored'), '-f', $dump],
		'the dump restores');
	is($node->safe_psql('restored', q{
		SELECT (SELECT count(*) FROM (SELECT x::text FROM c x EXCEPT ALL SELECT y::text FROM h y) a),
		       (SELECT count(*) FROM (SELECT y::text FROM h y EXCEPT ALL SELECT x::text FROM c x) b),
		       (SELECT amname FROM pg_am a JOIN pg_class r ON r.relam = a.oid WHERE r.relname = 'c'),
		       quickstep.check_table('c') >= 120000}),
		'0|0|quickstep_column|t', 'restored: the same rows, the same access method');
}

# a standby replays runs and directory
$node->backup('b1');
my $standby = PostgreSQL::Test::Cluster->new('column_standby');
$standby->init_from_backup($node, 'b1', has_streaming => 1);
$standby->start;
$node->safe_psql('postgres', qq{
	CREATE TABLE cs (LIKE h) USING quickstep_column;
	COPY cs FROM '$copyfile';
});
$node->wait_for_catchup($standby);
same_as_heap($standby, 'a standby reads what the primary loaded', 'cs');

# rows a merge moved show their inserters' xmin on the standby too (the
# blocks' origin xmins travel in the runs' WAL)
$node->safe_psql('postgres', q{
	CREATE TABLE xs (id int, v int) USING quickstep_column;
	CREATE TABLE xsh (id int, v int);
});
for my $i (0 .. 2)
{
	my ($lo, $hi) = ($i * 100 + 1, $i * 100 + 100);
	$node->safe_psql('postgres', qq{
		SET quickstep.column_delta_rows = 1000;
		BEGIN;
		INSERT INTO xs SELECT g, g FROM generate_series($lo, $hi) g;
		INSERT INTO xsh SELECT g, g FROM generate_series($lo, $hi) g;
		COMMIT;
	});
}
# merge() moves only rows older than every snapshot: retry a moment
for (my $try = 0; $try < 600; $try++)
{
	last if $node->safe_psql('postgres', q{SELECT quickstep.merge('xs')}) > 0;
	usleep(50_000);
}
is($node->safe_psql('postgres', q{SELECT delta_rows FROM quickstep.column_table_stats('xs')}),
	'0', 'the primary merged the rows');
$node->wait_for_catchup($standby);
is($standby->safe_psql('postgres', q{
	SELECT count(*) FILTER (WHERE xs.xmin = xsh.xmin) || '/' || count(*)
	  FROM xs JOIN xsh USING (id)}), '300/300',
	"a standby reads moved rows with their inserters' xmin");
$standby->stop;

# corruption: a byte of a run page, a page of another block, the metapage
my $file = $node->data_dir . '/' . $node->safe_psql('postgres', q{SELECT pg_relation_filepath('cs')});
$node->safe_psql('postgres', 'CHECKPOINT');
my @runpages;
{
	my $size = -s $file;
	for (my $blk = 0; $blk * 8192 < $size; $blk++)
	{
		my $sp = peek_file($file, $blk * 8192 + 8176, 16);
		push @runpages, [$blk, unpack('x4 V3', $sp)] if substr($sp, 0, 4) eq 'QSCP';
	}
}
ok(@runpages > 4, 'the table has block runs');

sub query_fails
{
	my ($what, $sql, $detail) = @_;
	my ($r, $o, $e) = $node->psql('postgres',
		qq{SET ignore_checksum_failure = on; \\set VERBOSITY verbose
		  $sql});
	isnt($r, 0, "$what: fails");
	like($e, qr/XX001/, "$what: with data_corrupted");
	like($e, $detail, "$what: and says where");
	is($node->safe_psql('postgres', 'SELECT 1'), '1', "$what: the server is up");
}

# a page in the middle of the first block's run: stripe bytes
my ($blk, $id, $pageno, $npages) = @{ $runpages[0] };
ok($npages >= 3, "block $id has a run of $npages pages");
my ($lblk) = map { $_->[0] } grep { $_->[1] == $id && $_->[2] == 1 } @runpages;
my $orig = peek_file($file, $lblk * 8192 + 100, 1);
patch_file($node, $file, $lblk * 8192 + 100, chr(ord($orig) ^ 0x5a));
# the queries read every column (a whole-row reference): a scan that reads
# some columns reads only their pages (QuickstepScan projects on column
# tables), so damage elsewhere shows when a query reads it, or check_table
query_fails('a flipped byte in a run page', q{SELECT count(*), sum(length(cs::text)) FROM cs},
	qr/column block $id of relation "cs" is corrupt/);
query_fails('check_table on a flipped byte', q{SELECT quickstep.check_table('cs')},
	qr/column block $id of relation "cs" is corrupt/);
patch_file($node, $file, $lblk * 8192 + 100, $orig);
is($node->safe_psql('postgres', q{SELECT count(*) FROM cs}), '120000', 'repaired, it reads again');

# a page that claims to belong to another block
my $sp = peek_file($file, $lblk * 8192 + 8180, 4);
patch_file($node, $file, $lblk * 8192 + 8180, pack('V', $id + 1000));
query_fails('a run page of another block', q{SELECT count(*), sum(length(cs::text)) FROM cs},
	qr/column block $id of relation "cs" is corrupt: page \d+ of column block $id/);
patch_file($node, $file, $lblk * 8192 + 8180, $sp);

# the metapage
my $m = peek_file($file, 24, 4);
patch_file($node, $file, 24, 'XXXX');
query_fails('a damaged metapage', q{SELECT count(*) FROM cs},
	qr/metapage of column table "cs" is corrupt/);
patch_file($node, $file, 24, $m);
same_as_heap($node, 'repaired, every row is back', 'cs');

# every block's header page damaged: planning reads a block's header for
# the fetch charge (src/scan/colcost.c) and must not fail on it — a fetch
# of a delta row by TID still plans and runs, and a query that reads a
# block reports it
my %hdr;
for my $rp (grep { $_->[2] == 0 } @runpages)
{
	my $at = $rp->[0] * 8192 + 100;
	$hdr{$at} = peek_file($file, $at, 1);
	patch_file($node, $file, $at, chr(ord($hdr{$at}) ^ 0x5a));
}
ok(keys %hdr >= 1, 'the header page of every block damaged (' . scalar(keys %hdr) . ')');
my $plan_rc = $node->psql('postgres', q{SET ignore_checksum_failure = on;
	EXPLAIN SELECT * FROM cs WHERE ctid = '(0,1)'});
is($plan_rc, 0, 'a TID fetch still plans with every block header damaged');
is($node->safe_psql('postgres', q{SET ignore_checksum_failure = on;
	SELECT count(*) FROM cs WHERE ctid = '(0,1)'}), '0',
	'and runs (no delta row there)');
query_fails('a damaged block header', q{SELECT count(*), sum(length(cs::text)) FROM cs},
	qr/column block \d+ of relation "cs" is corrupt/);
patch_file($node, $file, $_, $hdr{$_}) for keys %hdr;
same_as_heap($node, 'headers repaired, every row is back', 'cs');

# the delete map: a main row deleted and one updated (rolled back, so that
# the table stays equal to h), then their delete-map page damaged
$node->safe_psql('postgres', q{BEGIN; DELETE FROM cs WHERE id = 5000;
	UPDATE cs SET t = 'x' WHERE id = 5001; ROLLBACK});
same_as_heap($node, 'a rolled back DELETE and UPDATE of main rows change nothing', 'cs');
$node->safe_psql('postgres', 'CHECKPOINT');
my $nb = $node->safe_psql('postgres', q{SELECT pg_relation_size('cs') / 8192});
my $dblk;		# the delete-map page: special {QSCX, block id, virtual block, rows}
for (my $b = $nb - 1; $b > 0 && !defined $dblk; $b--)
{
	my ($mg, $bid, $vb) = unpack('VVV', peek_file($file, $b * 8192 + 8176, 12));
	$dblk = $b if $mg == 0x58435351 && $vb != 0xFFFFFFFF;
}
ok(defined $dblk, 'the DML made a delete-map page');
my $dm = peek_file($file, $dblk * 8192 + 8180, 4);
patch_file($node, $file, $dblk * 8192 + 8180, pack('V', 999999));
query_fails('a delete-map page of another block', q{SELECT count(*) FROM cs},
	qr/delete map of column table "cs" is corrupt: a page of another virtual page at block $dblk/);
query_fails('check_table finds it too', q{SELECT quickstep.check_table('cs')},
	qr/delete map of column table "cs" is corrupt/);
patch_file($node, $file, $dblk * 8192 + 8180, $dm);
same_as_heap($node, 'repaired, every row is back', 'cs');
$node->stop;
done_testing();
