# Randomized differential churn (QsChurn.pm): random INSERT/UPDATE/DELETE with
# random NULL patterns and values of every width class, aborted work, VACUUM
# and pruning reads, on every quickstep row layout side by side with heap;
# after each round the contents equal heap's and the checkers are clean.
#
# QS_CHURN_ROUNDS (default 50) and QS_CHURN_SEED (default: a fixed seed per
# server version, so that two versions cover two sequences) set the length and
# the sequence; `make stress` runs it much longer with a fresh seed.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use QsTest;
use QsChurn;

my $node = qs_new_node('churn');
$node->append_conf('postgresql.conf', q{
autovacuum = off
log_min_messages = warning
});
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION quickstep_am');

my $rounds = $ENV{QS_CHURN_ROUNDS} || 50;
my $seed = $ENV{QS_CHURN_SEED} || (20261123 + $node->pg_version->major);
churn_run($node, 'postgres', $rounds, $seed, split(' ', $ENV{QS_CHURN_SHAPES} // ''));

# "PANIC:  " as the server logs it: a statement logged with its error may
# hold random text with PANIC in it (seed 6173 did)
ok(!$node->log_contains(qr/terminated by signal|PANIC:  /), 'no backend crashed');
$node->stop;
done_testing();
