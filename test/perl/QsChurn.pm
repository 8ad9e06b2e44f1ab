# A seeded, randomized, differential churn of quickstep row tables against
# heap.  The same random statements run on a heap table and on one table of
# every quickstep row layout; after every round the full contents of each
# quickstep table must equal heap's, every index must agree with its table,
# and quickstep.check_table / check_index must be clean.
#
# What the statements cover (the classes of value that decide how a layout
# packs a page): NULL in every column at random; int2/int4/int8/float8/bool/
# date/timestamptz (every alignment); text of 1-byte-header length (1..21
# bytes, unaligned), of 4-byte-header length (120..260 bytes, int-aligned),
# compressible values of 1-6 kB (compressed inline), incompressible values of
# 2.5-9 kB (TOASTed out of line); numeric, char(n), bytea, jsonb; UPDATEs that
# toggle a column between NULL and a value, grow and shrink records; DELETEs,
# aborted inserts and updates, VACUUM (and FREEZE), and reads that prune.
#
# The random generator is Perl's, seeded: a failure names its seed and round,
# and QS_CHURN_SEED=S QS_CHURN_ROUNDS=R reproduces it.
package QsChurn;
use strict;
use warnings;
use Exporter 'import';
use Test::More;

our @EXPORT = qw(churn_run churn_tables);

our @LAYOUTS = split ' ', ($ENV{QS_CHURN_LAYOUTS} || 'quickstep_nsm quickstep_pax quickstep_hpl');

# Table names, heap first.
sub churn_tables
{
	my ($prefix) = @_;
	return ("${prefix}_heap", map { (my $t = $_) =~ s/^quickstep_//; "${prefix}_$t" } @LAYOUTS);
}

my %TYPE = (
	a => 'int2', b => 'int4', c => 'int8', d => 'float8', t1 => 'text', t2 => 'text',
	n => 'numeric', bo => 'bool', ch => 'char(5)', dt => 'date', ts => 'timestamptz',
	by => 'bytea', j => 'jsonb', w => 'int4');

# Table shapes: the columns besides id.  Narrow shapes pack many records of
# mixed widths into a page (where compaction and redistribution work hardest);
# the wide one has every alignment and varlena class in one record.
our %SHAPES = (
	wide => [qw(a b c d t1 t2 n bo ch dt ts by j w)],
	narrow => [qw(t2 w)],
	pair => [qw(t2)],
	mixed => [qw(a t1 d t2 b)],
);

# The int4 column a shape's csbtree index and range reads use.
sub key_column
{
	my ($shape) = @_;
	my %has = map { $_ => 1 } @{ $SHAPES{$shape} };
	return $has{b} ? 'b' : $has{w} ? 'w' : 'id';
}

# churn_setup(NODE, DB, PREFIX): the tables (same columns, every layout), a
# primary key (btree) and a csbtree index on each, and rndtxt(seed, len):
# incompressible text (md5 chains) that TOAST must store out of line.
sub churn_setup
{
	my ($node, $db, $prefix, $shape) = @_;
	my @t = churn_tables($prefix);
	my $cols = join(",\n", 'id int8 NOT NULL', map { "$_ $TYPE{$_}" } @{ $SHAPES{$shape} });
	my $key = key_column($shape);
	my @am = ('heap', @LAYOUTS);
	my $sql = q{
CREATE OR REPLACE FUNCTION rndtxt(s int, n int) RETURNS text LANGUAGE sql IMMUTABLE
	AS $$ SELECT left(string_agg(md5(s::text || ':' || k), '' ORDER BY k), n)
	      FROM generate_series(0, n / 32) k $$;
};
	for my $i (0 .. $#t)
	{
		$sql .= "CREATE TABLE $t[$i] ($cols) USING $am[$i];\n"
		  . "ALTER TABLE $t[$i] ADD PRIMARY KEY (id);\n"
		  . "CREATE INDEX $t[$i]_k ON $t[$i] USING csbtree ($key);\n";
	}
	$node->safe_psql($db, $sql);
}

# Random SQL literals of each class.
sub rint { my ($lo, $hi) = @_; return $lo + int(rand($hi - $lo + 1)); }
sub maybe_null { my ($p, $v) = @_; return rand() < $p ? 'NULL' : $v; }

sub rstr
{
	my ($len) = @_;
	my @c = ('a' .. 'z', 'A' .. 'Z', '0' .. '9', ' ', 'é', 'ß');
	return join('', map { $c[int(rand(@c))] } 1 .. $len);
}

sub text_value
{
	my $k = rand();
	return 'NULL' if $k < 0.25;
	return "'" . rstr(rint(0, 21)) . "'" if $k < 0.55;
	return "'" . rstr(rint(120, 260)) . "'" if $k < 0.80;
	return "repeat('" . rstr(rint(1, 6)) . "', " . rint(300, 1500) . ')' if $k < 0.92;
	return 'rndtxt(' . rint(1, 1_000_000) . ', ' . rint(2500, 9000) . ')';
}

sub short_text { return maybe_null(0.3, "'" . rstr(rint(0, 21)) . "'"); }

sub float_value
{
	my $k = rand();
	return 'NULL' if $k < 0.2;
	return "'NaN'" if $k < 0.23;
	return "'-Infinity'" if $k < 0.25;
	return sprintf('%.6g', (rand() - 0.5) * 10**rint(0, 12));
}

sub bytea_value
{
	my $k = rand();
	return 'NULL' if $k < 0.3;
	return "'\\x" . join('', map { sprintf('%02x', int(rand(256))) } 1 .. rint(0, 40)) . "'::bytea"
	  if $k < 0.85;
	return "convert_to(rndtxt(" . rint(1, 100000) . ', ' . rint(200, 3000) . "), 'UTF8')";
}

sub jsonb_value
{
	my $k = rand();
	return 'NULL' if $k < 0.3;
	return "'{\"k\": " . rint(0, 1000) . ", \"s\": \"" . rstr(rint(0, 12)) . "\"}'" if $k < 0.8;
	return "jsonb_build_object('a', " . rint(0, 9) . ", 'arr', to_jsonb(ARRAY[" .
	  join(',', map { rint(0, 99) } 1 .. rint(1, 30)) . "]), 't', " . text_value() . ')';
}

# Every column but id: a random value (or NULL) of its class.
my %GEN = (
	a => sub { maybe_null(0.3, rint(-32768, 32767)) },
	b => sub { maybe_null(0.2, rint(-1000, 1000)) },
	c => sub { maybe_null(0.3, rint(-2**40, 2**40)) },
	d => \&float_value,
	t1 => \&short_text,
	t2 => \&text_value,
	n => sub { maybe_null(0.3, sprintf('%d.%0*d', rint(-10**6, 10**6), rint(0, 8), rint(0, 99999))) },
	bo => sub { maybe_null(0.3, rand() < 0.5 ? 'true' : 'false') },
	ch => sub { maybe_null(0.3, "'" . rstr(rint(0, 5)) . "'") },
	dt => sub { maybe_null(0.3, "date '2000-01-01' + " . rint(-5000, 20000)) },
	ts => sub { maybe_null(0.3, "timestamptz '2020-01-01 00:00+00' + interval '1 second' * " . rint(0, 10**8)) },
	by => \&bytea_value,
	j => \&jsonb_value,
	w => sub { maybe_null(0.3, rint(0, 10**9)) },
);

sub row_values
{
	my ($id, $cols) = @_;
	return '(' . join(', ', $id, map { $GEN{$_}->() } @$cols) . ')';
}

# One round: a list of statement templates; %T stands for the table.
sub round_statements
{
	my ($state, $shape) = @_;
	my $cols = $SHAPES{$shape};
	my %has = map { $_ => 1 } @$cols;
	my $key = key_column($shape);
	my @s;
	my $nops = rint(3, 8);
	for (1 .. $nops)
	{
		my $k = rand();
		if ($k < 0.25)
		{
			my $n = rint(1, 120);
			my @rows = map { row_values($state->{next_id}++, $cols) } 1 .. $n;
			push @s, "INSERT INTO %T VALUES " . join(",\n", @rows) . ';';
		}
		elsif ($k < 0.45)
		{
			# Update random columns of random rows (by id range and modulus).
			my @set = map { "$_ = " . $GEN{$_}->() } grep { rand() < 0.35 } @$cols;
			@set = ('t2 = ' . text_value()) unless @set;
			my ($m, $r) = (rint(2, 9), 0);
			$r = rint(0, $m - 1);
			push @s, "UPDATE %T SET " . join(', ', @set)
			  . " WHERE id % $m = $r AND id >= " . rint(0, $state->{next_id}) . ';';
		}
		elsif ($k < 0.55)
		{
			# Toggle a variable-width column between NULL and a value.
			my @var = grep { $has{$_} } qw(t1 t2 t2 by j n);
			my $col = $var[rint(0, $#var)];
			my $v = $col eq 't1' ? "'" . rstr(rint(1, 21)) . "'" : $GEN{$col}->();
			$v = $GEN{$col}->() while $v eq 'NULL';
			my $m = rint(2, 7);
			my %type = (t1 => 'text', t2 => 'text', by => 'bytea', j => 'jsonb', n => 'numeric');
			push @s, "UPDATE %T SET $col = CASE WHEN $col IS NULL THEN ($v)::$type{$col} ELSE NULL END"
			  . " WHERE id % $m = " . rint(0, $m - 1) . ';';
		}
		elsif ($k < 0.62)
		{
			# Grow or shrink records: a fixed column and a wide one.
			my $m = rint(3, 11);
			push @s, "UPDATE %T SET " . ($has{w} ? 'w = coalesce(w, 0) + 1, ' : '') . "t2 = "
			  . (rand() < 0.5 ? "coalesce(t2, '') || '" . rstr(rint(1, 300)) . "'" : 'left(t2, ' . rint(0, 30) . ')')
			  . " WHERE id % $m = " . rint(0, $m - 1) . ';';
		}
		elsif ($k < 0.75)
		{
			my $pct = rint(3, 25);
			push @s, "DELETE FROM %T WHERE (id * " . rint(1, 97) . ' + ' . rint(0, 99) . ") % 100 < $pct;";
		}
		elsif ($k < 0.80)
		{
			push @s, "DELETE FROM %T WHERE t2 IS NULL AND id % " . rint(2, 10) . ' = 0;';
		}
		elsif ($k < 0.84)
		{
			# Work that aborts: its records are dead at once.
			my $n = rint(1, 30);
			my @rows = map { row_values($state->{next_id} + 1_000_000 + $_, $cols) } 1 .. $n;
			push @s, "BEGIN; INSERT INTO %T VALUES " . join(",\n", @rows)
			  . "; UPDATE %T SET t2 = " . text_value() . ' WHERE id % ' . rint(2, 5)
			  . " = 0; DELETE FROM %T WHERE id % 7 = " . rint(0, 6) . '; ROLLBACK;';
		}
		elsif ($k < 0.96)
		{
			push @s, rand() < 0.1 ? 'VACUUM (FREEZE) %T;' : 'VACUUM %T;';
		}
		else
		{
			# Reads that prune pages (and run the pushdown scan).
			push @s, "SELECT count(*) FROM %T WHERE $key > " . rint(-1000, 1000) . ';';
		}
	}
	return @s;
}

# Per-table check queries, one output line per table:
#   name|rows|md5 of all rows in id order|index answers|check_table
sub check_sql
{
	my ($key, @tables) = @_;
	my @q;
	for my $t (@tables)
	{
		my $chk = $t =~ /_heap$/ ? "'-'"
		  : "quickstep.check_table('$t')::text || '/' || quickstep.check_index('${t}_k')::text";
		push @q, "SELECT '$t', count(*), md5(coalesce(string_agg(x::text, E'\\n' ORDER BY id), '')),"
		  . " (SELECT count(*) || '/' || coalesce(sum($key), 0) FROM $t WHERE $key BETWEEN -300 AND 300),"
		  . " (SELECT count(*) FROM $t WHERE id > 0), $chk FROM $t x;";
	}
	return "SET enable_seqscan = off; SET enable_bitmapscan = off;\n"
	  . join("\n", @q[0..0]) . "\nRESET enable_seqscan; RESET enable_bitmapscan;\n"
	  . join("\n", @q[1..$#q]) . "\n";
}

# churn_run(NODE, DB, ROUNDS, SEED, SHAPES...): sets up one group of tables
# per shape (named after it) and runs the rounds over all of them; one TAP
# test at the end, or a failing one at the first divergence or error.
sub churn_run
{
	my ($node, $db, $rounds, $seed, @shapes) = @_;
	@shapes = sort keys %SHAPES unless @shapes;
	churn_setup($node, $db, $_, $_) for @shapes;
	srand($seed);
	note "churn: seed $seed, $rounds rounds, shapes @shapes"
	  . " (QS_CHURN_SEED=$seed QS_CHURN_ROUNDS=$rounds reproduces)";
	my %state = map { $_ => { next_id => 1 } } @shapes;
	my $checked = 0;
	for my $round (1 .. $rounds)
	{
		my $sql = "\\set ON_ERROR_STOP 1\n";
		for my $shape (@shapes)
		{
			my @tables = churn_tables($shape);
			for my $st (round_statements($state{$shape}, $shape))
			{
				for my $t (@tables)
				{
					(my $s = $st) =~ s/%T/$t/g;
					$sql .= "$s\n";
				}
			}
			# The first table listed is read through its indexes, the
			# others by plain and pushdown scans: heap on odd rounds, the
			# last layout on even ones.
			$sql .= check_sql(key_column($shape), ($round % 2) ? @tables : reverse @tables);
		}
		my ($out, $err) = ('', '');
		my $rc = $node->psql($db, $sql, stdout => \$out, stderr => \$err,
			extra_params => [ '-A', '-t', '-q' ]);
		if ($rc != 0)
		{
			fail("churn round $round (seed $seed) ran without error");
			diag("error: $err");
			return 0;
		}
		my %line = map { my @f = split /\|/; ($f[0] => [ @f[1 .. $#f] ]) } split /\n/, $out;
		for my $shape (@shapes)
		{
			my ($h, @others) = churn_tables($shape);
			my $heap = $line{$h};
			for my $t (@others)
			{
				my $got = $line{$t};
				next if defined $got && defined $heap
				  && join('|', @$got[0 .. 3]) eq join('|', @$heap[0 .. 3])
				  && $got->[3] eq $got->[0];
				fail("churn round $round (seed $seed): $t equals $h");
				diag("$h: " . join('|', @{ $heap // [] }) . "\n$t: " . join('|', @{ $got // [] }));
				my $diff = $node->safe_psql($db,
					"(SELECT 'heap only', x::text FROM $h x EXCEPT SELECT 'heap only', y::text FROM $t y)"
					. " UNION ALL (SELECT '$t only', y::text FROM $t y EXCEPT SELECT '$t only', x::text FROM $h x)"
					. " LIMIT 10");
				diag("first differences:\n" . substr($diff, 0, 4000));
				return 0;
			}
		}
		$checked++;
	}
	my $sizes = $node->safe_psql($db, join(' UNION ALL ',
		map { "SELECT '$_', (SELECT count(*) FROM $_), pg_relation_size('$_') / 8192" }
		map { churn_tables($_) } @shapes));
	note "churn: rows and pages at the end:\n$sizes";
	pass("churn: $checked rounds, every layout equal to heap and clean after each (seed $seed)");
	return 1;
}

1;
