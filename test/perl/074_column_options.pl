# Column tables' options (issue 12, src/column/README.md section 8):
# quickstep.sort_key, rows_per_block, merge_fraction, merge_threshold and
# encoding_<column>
# in CREATE TABLE / CREATE TABLE AS / ALTER TABLE SET and RESET, kept in
# pg_class.reloptions beside core's; malformed ones and ones on tables of
# other access methods are refused with invalid_parameter_value (22023)
# and a hint; bulk loads cut blocks at rows_per_block and sort them on the
# sort key (NULLs last) when no TID of theirs can have been handed out;
# core's own ALTER TABLE SET keeps working; pg_dump | psql and pg_dump -Fc |
# pg_restore bring the options back unchanged, with the data.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use QsTest;

my $node = qs_new_node('column_options');
$node->start;

my $copyfile = $node->basedir . '/rows.copy';
$node->safe_psql('postgres', qq{
	CREATE EXTENSION quickstep_am;
	CREATE FUNCTION column_dev_handler(internal) RETURNS table_am_handler
	  AS 'quickstep_am', 'column_dev_handler' LANGUAGE C;
	CREATE ACCESS METHOD qs_column_dev TYPE TABLE HANDLER column_dev_handler;
	-- the SQLSTATE and whether a hint came with it, of one statement
	CREATE FUNCTION sqlstate_of(q text) RETURNS text LANGUAGE plpgsql AS \$\$
	DECLARE st text; h text;
	BEGIN
	  EXECUTE q;
	  RETURN 'ok';
	EXCEPTION WHEN others THEN
	  GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, h = PG_EXCEPTION_HINT;
	  RETURN st || CASE WHEN h <> '' THEN ' hint' ELSE '' END;
	END \$\$;
	CREATE TABLE h (id int, k int, t text, n numeric, f float8);
	INSERT INTO h
	SELECT i, CASE WHEN i % 97 = 0 THEN NULL ELSE (i * 7919) % 10007 END,
	       CASE WHEN i % 5 = 0 THEN NULL ELSE 'v' || (i * 31) % 1009 END,
	       (i % 13)::numeric / 4, i / 7.0
	FROM generate_series(1, 31000) i;
	COPY h TO '$copyfile';
});

# the rows of main blocks, by block (TID range) and position in it
sub main_rows
{
	my ($rel) = @_;
	return qq{
	SELECT ((ctid::text::point)[0]::bigint - 2147483648) / 4096 AS blk,
	       mod((ctid::text::point)[0]::bigint - 2147483648, 4096) * 291
	         + (ctid::text::point)[1]::int AS pos, x.*
	FROM $rel x WHERE (ctid::text::point)[0] >= 2147483648};
}

# rows per main block, in block order
sub block_sizes
{
	my ($rel) = @_;
	my $q = main_rows($rel);
	return $node->safe_psql('postgres',
		"SELECT string_agg(n::text, ',' ORDER BY blk) FROM (SELECT blk, count(*) n FROM ($q) m GROUP BY blk) b");
}

# rows of main blocks out of col's order (NULLs last) within their block
sub out_of_order
{
	my ($rel, $col) = @_;
	my $q = main_rows($rel);
	return $node->safe_psql('postgres', qq{
		SELECT count(*) FROM (
		  SELECT $col AS v, lag($col) OVER w AS pv, lag($col IS NULL) OVER w AS pnull
		  FROM ($q) m WINDOW w AS (PARTITION BY blk ORDER BY pos)) x
		WHERE (pnull AND v IS NOT NULL) OR v < pv});
}

sub same_as_heap
{
	my ($db, $rel, $what) = @_;
	is($node->safe_psql($db, qq{
		SELECT (SELECT count(*) FROM (SELECT x::text FROM $rel x EXCEPT ALL SELECT y::text FROM h y) a),
		       (SELECT count(*) FROM (SELECT y::text FROM h y EXCEPT ALL SELECT x::text FROM $rel x) b),
		       quickstep.check_table('$rel') >= 0}),
		'0|0|t', $what);
}

sub reloptions
{
	my ($rel, $db) = @_;
	return $node->safe_psql($db // 'postgres',
		"SELECT array_to_string(reloptions, ' ') FROM pg_class WHERE oid = '$rel'::regclass");
}

# --- CREATE TABLE with options, both spellings ---------------------------
$node->safe_psql('postgres', q{
	CREATE TABLE c (LIKE h) USING qs_column_dev
	  WITH (quickstep.sort_key = 'k', quickstep.rows_per_block = 5000,
	        quickstep.merge_fraction = 0.2, quickstep.encoding_t = 'lz4',
	        fillfactor = 90);
	CREATE TABLE q (a int, "B c" text) USING qs_column_dev
	  WITH ("quickstep.sort_key"='B c', "quickstep.rows_per_block"='1000',
	        "quickstep.encoding_B c"=plain);
});
is(reloptions('c'),
	'fillfactor=90 quickstep.sort_key=k quickstep.rows_per_block=5000 quickstep.merge_fraction=0.2 quickstep.encoding_t=lz4',
	'CREATE TABLE: the options are stored in pg_class.reloptions beside core\'s');
is(reloptions('q'),
	'quickstep.sort_key=B c quickstep.rows_per_block=1000 quickstep.encoding_B c=plain',
	'pg_dump\'s quoted spelling ("quickstep.name"=value) is taken as well');
is($node->safe_psql('postgres', q{
	SELECT string_agg(name || '=' || value || coalesce(' (' || note || ')', ''), ', ')
	FROM quickstep.column_options WHERE relid = 'c'::regclass}),
	'sort_key=k, rows_per_block=5000, merge_fraction=0.2, encoding_t=lz4',
	'quickstep.column_options shows them');

# a table with the options opens in a fresh session (relcache parsing skips them)
is($node->safe_psql('postgres', 'SELECT count(*) FROM c'), '0', 'a new session opens the table');

# merge_threshold: rows, canonical as an integer; SET and RESET
$node->safe_psql('postgres', q{CREATE TABLE mt (a int) USING qs_column_dev WITH (quickstep.merge_threshold = 250000)});
is(reloptions('mt'), 'quickstep.merge_threshold=250000', 'merge_threshold is stored');
$node->safe_psql('postgres', q{ALTER TABLE mt SET (quickstep.merge_threshold = 7, quickstep.merge_fraction = 0.25)});
is(reloptions('mt'), 'quickstep.merge_threshold=7 quickstep.merge_fraction=0.25', 'ALTER TABLE SET replaces it');
$node->safe_psql('postgres', q{ALTER TABLE mt RESET (quickstep.merge_threshold, quickstep.merge_fraction)});
is(reloptions('mt'), '', 'and RESET removes both');

# --- refused options -------------------------------------------------------
$node->safe_psql('postgres', 'CREATE TABLE plain_heap (a int)');
my @bad = (
	['unknown option', q{CREATE TABLE b1 (a int) USING qs_column_dev WITH (quickstep.bogus = 1)}],
	['unknown option, quoted', q{CREATE TABLE b1 (a int) USING qs_column_dev WITH ("quickstep.sortkey" = a)}],
	['rows_per_block below 1000', q{CREATE TABLE b1 (a int) USING qs_column_dev WITH (quickstep.rows_per_block = 999)}],
	['rows_per_block above the delete map\'s 593058', q{CREATE TABLE b1 (a int) USING qs_column_dev WITH (quickstep.rows_per_block = 593059)}],
	['rows_per_block not a number', q{CREATE TABLE b1 (a int) USING qs_column_dev WITH (quickstep.rows_per_block = 'many')}],
	['merge_fraction above 1', q{CREATE TABLE b1 (a int) USING qs_column_dev WITH (quickstep.merge_fraction = 1.5)}],
	['merge_fraction NaN', q{CREATE TABLE b1 (a int) USING qs_column_dev WITH (quickstep.merge_fraction = 'NaN')}],
	['merge_threshold 0', q{CREATE TABLE b1 (a int) USING qs_column_dev WITH (quickstep.merge_threshold = 0)}],
	['merge_threshold not a number', q{CREATE TABLE b1 (a int) USING qs_column_dev WITH (quickstep.merge_threshold = 'some')}],
	['an option without a value', q{CREATE TABLE b1 (a int) USING qs_column_dev WITH (quickstep.sort_key)}],
	['sort_key not a column', q{CREATE TABLE b1 (a int) USING qs_column_dev WITH (quickstep.sort_key = 'z')}],
	['sort_key of a type without order', q{CREATE TABLE b1 (a int, p point) USING qs_column_dev WITH (quickstep.sort_key = 'p')}],
	['an unknown encoding', q{CREATE TABLE b1 (a int) USING qs_column_dev WITH (quickstep.encoding_a = 'zip')}],
	['encoding of no column', q{CREATE TABLE b1 (a int) USING qs_column_dev WITH (quickstep.encoding_z = 'lz4')}],
	['dict for numeric (equal values differ)', q{CREATE TABLE b1 (a numeric) USING qs_column_dev WITH (quickstep.encoding_a = 'dict')}],
	['for for text', q{CREATE TABLE b1 (a text) USING qs_column_dev WITH (quickstep.encoding_a = 'for')}],
	['an option given twice', q{CREATE TABLE b1 (a int) USING qs_column_dev WITH (quickstep.sort_key = a, "quickstep.sort_key" = a)}],
	['CREATE TABLE of a heap table', q{CREATE TABLE b1 (a int) USING heap WITH (quickstep.sort_key = 'a')}],
	['CREATE TABLE of a heap table by default', q{CREATE TABLE b1 (a int) WITH (quickstep.rows_per_block = 5000)}],
	['CREATE TABLE AS of a heap table', q{CREATE TABLE b1 WITH (quickstep.sort_key = 'a') AS SELECT 1 AS a}],
	['ALTER TABLE of a heap table', q{ALTER TABLE plain_heap SET (quickstep.sort_key = 'a')}],
	['ALTER TABLE: a bad value', q{ALTER TABLE c SET (quickstep.rows_per_block = 0)}],
	['ALTER TABLE: sort_key not a column', q{ALTER TABLE c SET (quickstep.sort_key = 'nope')}],
	['ALTER TABLE: an unknown option in RESET', q{ALTER TABLE c RESET (quickstep.bogus)}],
);
for my $b (@bad)
{
	my ($what, $sql) = @$b;
	my $s = $sql =~ s/'/''/gr;
	is($node->safe_psql('postgres', "SELECT sqlstate_of('$s')"), '22023 hint',
		"refused with 22023 and a hint: $what");
}
is($node->safe_psql('postgres', q{SELECT sqlstate_of('ALTER TABLE c RESET (quickstep.sort_key = a)')}),
	'42601', 'RESET with a value is a syntax error, as core\'s');
is($node->safe_psql('postgres', q{SELECT count(*) FROM pg_class WHERE relname = 'b1'}), '0',
	'no refused statement left a table behind');
is(reloptions('plain_heap'), '', 'the heap table has no options');
is($node->safe_psql('postgres', q{
	SELECT sqlstate_of('CREATE TABLE b2 (a int) USING qs_column_dev WITH (quickstep.rows_per_block = 1000)'),
	       sqlstate_of('CREATE TABLE b3 (a int) USING qs_column_dev WITH (quickstep.rows_per_block = 593058)')}),
	'ok|ok', 'rows_per_block 1000 and 593058 are accepted');

# IF NOT EXISTS on an existing table leaves its options alone
$node->safe_psql('postgres', q{
	CREATE TABLE IF NOT EXISTS c (a int) USING qs_column_dev WITH (quickstep.rows_per_block = 7000)});
like(reloptions('c'), qr/rows_per_block=5000/, 'CREATE TABLE IF NOT EXISTS of an existing table changes nothing');

# --- loads: block sizes and sorted blocks -----------------------------------
$node->safe_psql('postgres', "COPY c FROM '$copyfile'");
same_as_heap('postgres', 'c', 'COPY: every value as heap has it, check_table clean (sorted flags verified)');
is(block_sizes('c'), '5000,5000,5000,5000,5000,5000,1000',
	'COPY: its full batches go straight to blocks of rows_per_block (5000), the last one partial');
is($node->safe_psql('postgres', q{SELECT delta_rows FROM quickstep.column_table_stats('c'::regclass)}),
	'0', 'COPY: no row left in the delta (the table is merged when COPY returns)');
is(out_of_order('c', 'k'), '0', 'each block is sorted on the sort key, NULLs last');
ok($node->safe_psql('postgres', 'SELECT count(*) FROM (' . main_rows('c') . ') m WHERE k IS NULL') > 0,
	'(the sorted blocks hold NULL keys)');

# one block, scanned: the main rows come back in key order
$node->safe_psql('postgres', q{CREATE TABLE one_cas USING qs_column_dev
	WITH (quickstep.sort_key = 'f', quickstep.rows_per_block = 20000) AS SELECT * FROM h ORDER BY random() LIMIT 10000});
is(block_sizes('one_cas'), '9000', 'CREATE TABLE AS: one block of the 9000 rows after the delta\'s 1000');
is($node->safe_psql('postgres',
	'SELECT bool_and(f >= pf) FROM (SELECT f, lag(f) OVER () AS pf FROM (' . main_rows('one_cas') . ') m) x'),
	't', 'CREATE TABLE AS: a sequential scan returns the block\'s rows in sort-key order');
is(reloptions('one_cas'), 'quickstep.sort_key=f quickstep.rows_per_block=20000',
	'CREATE TABLE AS: the options are stored');
is($node->safe_psql('postgres', q{SELECT quickstep.check_table('one_cas')}), '10000', 'CREATE TABLE AS: check_table clean');

# EXPLAIN ANALYZE CREATE TABLE AS creates the table with its options too
$node->safe_psql('postgres', q{EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
	CREATE TABLE ex USING qs_column_dev WITH (quickstep.sort_key = 'f', quickstep.rows_per_block = 2000)
	AS SELECT * FROM h});
is(reloptions('ex') . ' ' . block_sizes('ex') . ' ' . out_of_order('ex', 'f'),
	'quickstep.sort_key=f quickstep.rows_per_block=2000 ' . join(',', (2000) x 15) . ' 0',
	'EXPLAIN ANALYZE CREATE TABLE AS: options stored and used');

# ALTER TABLE SET applies to the next load
$node->safe_psql('postgres', q{
	ALTER TABLE c SET (quickstep.rows_per_block = 3000, quickstep.sort_key = 't'), RESET (quickstep.encoding_t);
});
is(reloptions('c'),
	'fillfactor=90 quickstep.sort_key=t quickstep.rows_per_block=3000 quickstep.merge_fraction=0.2',
	'ALTER TABLE SET/RESET: options replaced and removed, core\'s kept');
$node->safe_psql('postgres', "COPY c FROM '$copyfile'");
is(block_sizes('c'), '5000,5000,5000,5000,5000,5000,1000,' . join(',', (3000) x 10) . ',1000',
	'the next COPY cuts blocks of the new rows_per_block');
is($node->safe_psql('postgres', q{
	SELECT count(*) FROM (SELECT t AS v, lag(t) OVER w AS pv, lag(t IS NULL) OVER w AS pnull
	  FROM (} . main_rows('c') . q{) m WHERE blk >= 7 WINDOW w AS (PARTITION BY blk ORDER BY pos)) x
	WHERE (pnull AND v IS NOT NULL) OR v < pv}),
	'0', 'and sorts them on the new sort key');
is($node->safe_psql('postgres', q{SELECT count(*), quickstep.check_table('c') FROM c}), '62000|62000',
	'both loads there, check_table clean');

# rewrites apply the options as loads do (they used the defaults: one block
# of 150,000 rows, unsorted, every encoding allowed)
my $before = $node->safe_psql('postgres', q{SELECT md5(string_agg(x::text, ',' ORDER BY x::text)) FROM c x});
$node->safe_psql('postgres', 'VACUUM FULL c');
is(block_sizes('c'), join(',', (3000) x 20) . ',2000',
	'VACUUM FULL: blocks of rows_per_block (3000)');
is(out_of_order('c', 't'), '0', 'VACUUM FULL: each block sorted on the sort key');
is($node->safe_psql('postgres', q{SELECT md5(string_agg(x::text, ',' ORDER BY x::text)) || ' ' || quickstep.check_table('c') FROM c x}),
	"$before 62000", 'VACUUM FULL: the same rows, check_table clean');
$node->safe_psql('postgres', q{CREATE INDEX c_id ON c (id); CLUSTER c USING c_id});
is(block_sizes('c'), join(',', (3000) x 20) . ',2000', 'CLUSTER: blocks of rows_per_block');
is($node->safe_psql('postgres', q{
	SELECT count(*) FROM (SELECT id, lag(id) OVER (ORDER BY blk, pos) AS pid FROM (} . main_rows('c') . q{) m) x
	WHERE id < pid}),
	'0', 'CLUSTER: the index\'s order, not the sort key\'s');
$node->safe_psql('postgres', q{DROP INDEX c_id});

# --- core's ALTER TABLE SET/RESET with ours stored ---------------------------
$node->safe_psql('postgres', q{ALTER TABLE c SET (fillfactor = 50, toast.autovacuum_enabled = false)});
is(reloptions('c'),
	'fillfactor=50 quickstep.sort_key=t quickstep.rows_per_block=3000 quickstep.merge_fraction=0.2',
	'core ALTER TABLE SET (fillfactor) works and keeps ours');
$node->safe_psql('postgres', q{ALTER TABLE c RESET (fillfactor), SET (quickstep.merge_fraction = 0.5)});
is(reloptions('c'),
	'quickstep.sort_key=t quickstep.rows_per_block=3000 quickstep.merge_fraction=0.5',
	'core RESET and ours in one statement');
is($node->safe_psql('postgres', q{SELECT sqlstate_of('ALTER TABLE c SET (fillfactor = 5)')}), '22023',
	'core still validates its own values');
is(reloptions('c'),
	'quickstep.sort_key=t quickstep.rows_per_block=3000 quickstep.merge_fraction=0.5',
	'and a failed core ALTER leaves ours in place');
$node->safe_psql('postgres', q{VACUUM c; ALTER TABLE c SET (fillfactor = 70)});
is(reloptions('c'),
	'fillfactor=70 quickstep.sort_key=t quickstep.rows_per_block=3000 quickstep.merge_fraction=0.5',
	'VACUUM and another core SET keep the options');
is($node->safe_psql('postgres', q{SELECT count(*), quickstep.check_table('c') FROM c}), '62000|62000',
	'and the rows');

# --- TIDs that were handed out keep naming their row --------------------------
# An index gets the TIDs of a COPY's rows as they are loaded, and INSERT …
# RETURNING ctid shows them: such blocks stay in arrival order.
$node->safe_psql('postgres', q{
	CREATE TABLE ci (LIKE h) USING qs_column_dev WITH (quickstep.sort_key = 'k', quickstep.rows_per_block = 5000);
	CREATE INDEX ci_id ON ci (id);
});
$node->safe_psql('postgres', "COPY ci FROM '$copyfile'");
is($node->safe_psql('postgres', q{
	SET enable_seqscan = off; SET enable_bitmapscan = off;
	SELECT count(*) FROM h JOIN LATERAL (SELECT * FROM ci WHERE ci.id = h.id) x ON x::text = h::text}),
	'31000', 'with an index: every index entry finds its own row');
$node->safe_psql('postgres', q{
	CREATE TABLE cr (LIKE h) USING qs_column_dev WITH (quickstep.sort_key = 'k', quickstep.rows_per_block = 5000);
	CREATE TABLE returned (tid tid, id int);
	WITH ins AS (INSERT INTO cr SELECT * FROM h RETURNING ctid, id) INSERT INTO returned SELECT * FROM ins;
});
is($node->safe_psql('postgres', q{
	SELECT count(*) FROM returned r JOIN cr ON cr.ctid = r.tid AND cr.id = r.id}),
	'31000', 'INSERT … RETURNING ctid: every returned TID names its row');
same_as_heap('postgres', 'ci', 'with an index: the same rows as heap');

# --- encodings ----------------------------------------------------------------
$node->safe_psql('postgres', q{
	CREATE TABLE e_auto (a int, b int) USING qs_column_dev;
	CREATE TABLE e_plain (a int, b int) USING qs_column_dev WITH (quickstep.encoding_a = 'plain', quickstep.encoding_b = 'plain');
	CREATE TABLE e_lz4 (a int, b int) USING qs_column_dev WITH (quickstep.encoding_a = 'lz4');
	INSERT INTO e_auto SELECT i, i % 3 FROM generate_series(1, 200000) i;
	INSERT INTO e_plain SELECT i, i % 3 FROM generate_series(1, 200000) i;
	INSERT INTO e_lz4 SELECT i, i % 3 FROM generate_series(1, 200000) i;
});
my ($sa, $sp, $sl) = split /\|/, $node->safe_psql('postgres', q{
	SELECT pg_relation_size('e_auto'), pg_relation_size('e_plain'), pg_relation_size('e_lz4')});
ok($sp > $sa * 2, "encoding plain is held to ($sp bytes against the chooser's $sa)");
ok($sl != $sa && $sl != $sp, "encoding lz4 is held to ($sl bytes)");
is($node->safe_psql('postgres', q{
	SELECT sum(a)::text || ' ' || sum(b)::text FROM e_auto UNION ALL
	SELECT sum(a)::text || ' ' || sum(b)::text FROM e_plain UNION ALL
	SELECT sum(a)::text || ' ' || sum(b)::text FROM e_lz4}),
	"20000100000 200001\n20000100000 200001\n20000100000 200001", 'the same values whatever the encoding');
is($node->safe_psql('postgres', q{
	SELECT quickstep.check_table('e_plain') + quickstep.check_table('e_lz4')}), '400000', 'check_table clean');

# DDL keeps the stored options ones CREATE TABLE accepts (else the dump
# would not restore): RENAME COLUMN carries them along; DROP COLUMN, ALTER
# COLUMN TYPE and SET ACCESS METHOD remove what no longer applies
$node->safe_psql('postgres', q{
	CREATE TABLE rk (LIKE h) USING qs_column_dev
	  WITH (quickstep.sort_key = 'k', quickstep.encoding_k = 'for', quickstep.encoding_t = 'dict',
	        quickstep.encoding_n = 'lz4', quickstep.rows_per_block = 4000);
	ALTER TABLE rk RENAME COLUMN k TO k2;
});
is(reloptions('rk'),
	'quickstep.sort_key=k2 quickstep.encoding_k2=for quickstep.encoding_t=dict quickstep.encoding_n=lz4 quickstep.rows_per_block=4000',
	'RENAME COLUMN: the options naming the column follow it');
$node->safe_psql('postgres', "COPY rk FROM '$copyfile'");
is(out_of_order('rk', 'k2'), '0', 'and loads sort on the renamed column');
my ($out, $err) = ('', '');
$node->psql('postgres', q{ALTER TABLE rk DROP COLUMN t}, stderr => \$err);
like($err, qr/option quickstep\.encoding_t=dict of "rk" removed: no such column/,
	'DROP COLUMN: the options of the column are removed, with a notice');
is(reloptions('rk'), 'quickstep.sort_key=k2 quickstep.encoding_k2=for quickstep.encoding_n=lz4 quickstep.rows_per_block=4000',
	'the others stay');
# (a type change rewrites the table: on an empty one, as rewrites of main
# blocks are not built)
$node->safe_psql('postgres', q{
	CREATE TABLE rt (a int, b int) USING qs_column_dev
	  WITH (quickstep.sort_key = 'a', quickstep.encoding_a = 'for', quickstep.encoding_b = 'for');
});
$node->psql('postgres', q{ALTER TABLE rt ALTER COLUMN a TYPE text, ALTER COLUMN b TYPE numeric}, stderr => \$err);
like($err, qr/option quickstep\.encoding_a=for of "rt" removed: the encoding cannot store the column's type/,
	'ALTER COLUMN TYPE: an encoding the new type cannot take is removed, with a notice');
like($err, qr/option quickstep\.encoding_b=for of "rt" removed/, '(both)');
is(reloptions('rt'), 'quickstep.sort_key=a', 'a sort key on a type with an order stays');
$node->psql('postgres', q{ALTER TABLE rt ALTER COLUMN a TYPE point USING point(0, 0)}, stderr => \$err);
like($err, qr/option quickstep\.sort_key=a of "rt" removed: the column cannot be sorted on/,
	'a sort key on a type without an order is removed');
$node->safe_psql('postgres', q{
	CREATE TABLE to_heap (a int) USING qs_column_dev WITH (quickstep.sort_key = 'a');
	ALTER TABLE to_heap SET ACCESS METHOD heap;
});
is(reloptions('to_heap'), '', 'SET ACCESS METHOD heap: the options go');
is($node->safe_psql('postgres', q{SELECT count(*), quickstep.check_table('rk') FROM rk}), '31000|31000',
	'the table is sound after the DDL');

# a materialized view
$node->safe_psql('postgres', q{
	CREATE MATERIALIZED VIEW mv USING qs_column_dev
	  WITH (quickstep.sort_key = 'k', quickstep.rows_per_block = 4000) AS SELECT * FROM h;
	REFRESH MATERIALIZED VIEW mv;
});
is(reloptions('mv'), 'quickstep.sort_key=k quickstep.rows_per_block=4000', 'a materialized view takes options');
is(out_of_order('mv', 'k') . ' ' . block_sizes('mv'), '0 4000,4000,4000,4000,4000,4000,4000,2000',
	'REFRESH builds sorted blocks of rows_per_block');

# --- pg_dump | psql and pg_dump -Fc | pg_restore -----------------------------
my $opts_q = q{SELECT string_agg(relname || ':' || array_to_string(reloptions, ' '), ', ' ORDER BY relname)
	FROM pg_class WHERE reloptions IS NOT NULL AND relnamespace = 'public'::regnamespace};
my $data_q = q{SELECT string_agg(r, ', ' ORDER BY r) FROM (
	SELECT 'c ' || count(*) || ' ' || md5(string_agg(x::text, ',' ORDER BY x::text)) AS r FROM c x UNION ALL
	SELECT 'ci ' || count(*) || ' ' || md5(string_agg(x::text, ',' ORDER BY x::text)) FROM ci x UNION ALL
	SELECT 'one_cas ' || count(*) || ' ' || md5(string_agg(x::text, ',' ORDER BY x::text)) FROM one_cas x UNION ALL
	SELECT 'q ' || count(*) FROM q) s};
my $opts_before = $node->safe_psql('postgres', $opts_q);
my $data_before = $node->safe_psql('postgres', $data_q);
like($opts_before, qr/\bc:fillfactor=70 quickstep\.sort_key=t .*one_cas:quickstep\.sort_key=f/, '(options to dump)');
{
	my $dump = $node->basedir . '/opts.sql';
	my $fc = $node->basedir . '/opts.fc';
	$node->command_ok(['pg_dump', '-d', $node->connstr('postgres'), '-f', $dump], 'pg_dump (plain)');
	$node->command_ok(['pg_dump', '-Fc', '-d', $node->connstr('postgres'), '-f', $fc], 'pg_dump -Fc');
	$node->safe_psql('postgres', 'CREATE DATABASE r_plain; CREATE DATABASE r_custom');
	$node->command_ok(['psql', '-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', $node->connstr('r_plain'), '-f', $dump],
		'the plain dump restores through psql without an error');
	$node->command_ok(['pg_restore', '-e', '-d', $node->connstr('r_custom'), $fc],
		'the custom dump restores through pg_restore without an error');
	for my $db ('r_plain', 'r_custom')
	{
		is($node->safe_psql($db, $opts_q), $opts_before, "$db: every table's reloptions as they were");
		is($node->safe_psql($db, $data_q), $data_before, "$db: the same rows");
		is($node->safe_psql($db, q{SELECT quickstep.check_table('c') + quickstep.check_table('one_cas')}),
			'72000', "$db: check_table clean");
		is($node->safe_psql($db, q{
			SELECT count(*) FROM (SELECT t AS v, lag(t) OVER w AS pv, lag(t IS NULL) OVER w AS pnull
			  FROM (} . main_rows('c') . q{) m WINDOW w AS (PARTITION BY blk ORDER BY pos)) x
			WHERE (pnull AND v IS NOT NULL) OR v < pv}),
			'0', "$db: the restored COPY sorted c's blocks on its sort key");
		$node->safe_psql($db, q{ALTER TABLE c SET (fillfactor = 60)});
		like(reloptions('c', $db), qr/^fillfactor=60 quickstep\.sort_key=t /,
			"$db: core ALTER TABLE SET works on the restored table");
	}
}

done_testing();
