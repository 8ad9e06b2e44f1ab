# Concurrent churn on every row layout: pgbench clients toggle a text and a
# jsonb column between NULL, short, medium, compressed 4 kB and out-of-line
# values, delete and re-insert rows, run VACUUM, check_table and reading scans
# (which prune pages) at the same time.  Every row carries a checksum of its
# own value, written by the same statement: a scan that ever finds a row
# whose value does not match its checksum (a value damaged, swapped with a
# neighbour's or read as NULL) fails the client at once (division by zero),
# and so does check_table finding a corrupt page.  At the end: no client
# failed, no backend crashed, every id is present once, indexes agree.
#
# QS_CHURN_TX (default 400) is the transactions per client; make stress
# raises it.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use QsTest;

my $tx = $ENV{QS_CHURN_TX} || 1500;
my $node = qs_new_node('churn_cc');
$node->append_conf('postgresql.conf', q{
max_connections = 40
autovacuum_naptime = 1s
autovacuum_vacuum_threshold = 20
autovacuum_vacuum_scale_factor = 0
});
$node->start;
$node->safe_psql('postgres', q{
CREATE EXTENSION quickstep_am;
CREATE FUNCTION rndtxt(s int, n int) RETURNS text LANGUAGE sql IMMUTABLE
	AS $$ SELECT left(string_agg(md5(s::text || ':' || k), '' ORDER BY k), n)
	      FROM generate_series(0, n / 32) k $$;
-- The value a (kind, seed, len) triple stands for: NULL, a 1-byte-header
-- text, a 4-byte-header one, a compressible 4 kB one, an out-of-line one.
CREATE FUNCTION val(kind int, seed int, len int) RETURNS text LANGUAGE sql IMMUTABLE
	AS $$ SELECT CASE kind WHEN 0 THEN NULL
	                       WHEN 1 THEN left(md5(seed::text), len % 22)
	                       WHEN 2 THEN rndtxt(seed, 120 + len % 140)
	                       WHEN 3 THEN repeat(left(md5(seed::text), 3), 1400)
	                       ELSE rndtxt(seed, 2500 + len * 10) END $$;
});

my $conn = '-h ' . $node->host . ' -p ' . $node->port;
my $dir = PostgreSQL::Test::Utils::tempdir;

for my $am (qw(quickstep_nsm quickstep_pax quickstep_hpl))
{
	(my $t = $am) =~ s/^quickstep_/cc_/;
	$node->safe_psql('postgres', qq{
		CREATE TABLE $t (id int PRIMARY KEY, v text, j jsonb, h text, w int) USING $am;
		CREATE INDEX ${t}_w ON $t USING csbtree (w);
		INSERT INTO $t SELECT g, val(g % 5, g, g), jsonb_build_object('v', val(g % 5, g, g)),
		       md5(coalesce(val(g % 5, g, g), '~')), g FROM generate_series(1, 200) g;
	});
	my %script = (
		toggle => qq{
\\set id random(1, 200)
\\set kind random(0, 4)
\\set seed random(1, 1000000)
\\set len random(0, 300)
UPDATE $t SET v = val(:kind, :seed, :len), j = jsonb_build_object('v', val(:kind, :seed, :len)),
       h = md5(coalesce(val(:kind, :seed, :len), '~')), w = w + 1 WHERE id = :id;
},
		reinsert => qq{
\\set id random(1, 200)
\\set kind random(0, 4)
\\set seed random(1, 1000000)
BEGIN;
DELETE FROM $t WHERE id = :id;
INSERT INTO $t VALUES (:id, val(:kind, :seed, :id), jsonb_build_object('v', val(:kind, :seed, :id)),
       md5(coalesce(val(:kind, :seed, :id), '~')), :seed) ON CONFLICT (id) DO NOTHING;
COMMIT;
},
		verify => qq{
SELECT 1 / (count(*) = 0)::int FROM $t
 WHERE h <> md5(coalesce(v, '~')) OR (j ->> 'v') IS DISTINCT FROM v;
SELECT 1 / (count(*) > 0)::int FROM $t WHERE w > -1;
},
		vacuum => qq{VACUUM $t;},
		check => qq{SELECT quickstep.check_table('$t');},
	);
	my @args;
	for my $name (sort keys %script)
	{
		PostgreSQL::Test::Utils::append_to_file("$dir/$t-$name.sql", $script{$name});
		my $weight = { toggle => 10, reinsert => 4, verify => 3, vacuum => 1, check => 1 }->{$name};
		push @args, '-f', "$dir/$t-$name.sql\@$weight";
	}
	$node->command_ok([ 'pgbench', '-n', '-c', '5', '-j', '2', '-t', $tx,
		'-h', $node->host, '-p', $node->port, @args, 'postgres' ],
		"$am: 5 clients toggling NULL/short/medium/compressed/out-of-line values with VACUUM, check_table and verifying scans");
	is($node->safe_psql('postgres', qq{
		SELECT count(*), count(DISTINCT id), min(id), max(id),
		       count(*) FILTER (WHERE h <> md5(coalesce(v, '~')) OR (j ->> 'v') IS DISTINCT FROM v)
		  FROM $t}),
		'200|200|1|200|0', "$am: every id once, every value matches its checksum");
	is($node->safe_psql('postgres', qq{
		SET enable_seqscan = off; SET enable_bitmapscan = off;
		SELECT count(*), sum(w) FROM $t WHERE w > -1}),
		$node->safe_psql('postgres', qq{SELECT count(*), sum(w) FROM $t}),
		"$am: the csbtree index agrees with the table");
	$node->safe_psql('postgres', "VACUUM $t");
	ok($node->safe_psql('postgres', "SELECT quickstep.check_table('$t')") >= 200,
		"$am: check_table clean after a final VACUUM");
}
# "PANIC:  " as the server logs it: a statement logged with its error may
# hold random text with PANIC in it (seed 6173 did)
ok(!$node->log_contains(qr/terminated by signal|PANIC:  /), 'no backend crashed');
$node->stop;
done_testing();
