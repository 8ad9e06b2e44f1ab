# The extension survives a restart and a crash, and refuses clearly when
# the library is not in shared_preload_libraries.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use QsTest;

my $node = qs_new_node('preloaded');
$node->start;

$node->safe_psql('postgres', 'CREATE EXTENSION quickstep_am');
my $before = $node->safe_psql('postgres', 'SELECT started_at FROM quickstep.status()');
ok($before ne '', 'status() answers after CREATE EXTENSION');

$node->safe_psql('postgres', "ALTER SYSTEM SET quickstep.enable_pushdown = off");
$node->restart;
my $after = $node->safe_psql('postgres', 'SELECT started_at FROM quickstep.status()');
ok($after ne '' && $after ne $before, 'shared memory is created anew by the restarted postmaster');
is($node->safe_psql('postgres', 'SHOW quickstep.enable_pushdown'), 'off',
	'a GUC set with ALTER SYSTEM survives the restart');
is($node->safe_psql('postgres',
		"SELECT extversion FROM pg_extension WHERE extname = 'quickstep_am'"),
	'0.1', 'the extension is still installed after the restart');

# A crash (SIGKILL of the postmaster) and a restart: recovery must not trip
# over the library.
crash_and_restart($node);
is($node->safe_psql('postgres', 'SELECT version FROM quickstep.status()'),
	'0.1', 'status() answers after crash recovery');
$node->stop;

# Without preload: CREATE EXTENSION fails with an error and a hint, the
# server stays up.
my $plain = PostgreSQL::Test::Cluster->new('not_preloaded');
$plain->init;
$plain->start;
my ($ret, $stdout, $stderr) = $plain->psql('postgres', 'CREATE EXTENSION quickstep_am');
isnt($ret, 0, 'CREATE EXTENSION fails without shared_preload_libraries');
like($stderr, qr/must be loaded via shared_preload_libraries/, 'the error says why');
like($stderr, qr/HINT:.*shared_preload_libraries/, 'and hints at the fix');
($ret, $stdout, $stderr) = $plain->psql('postgres', "LOAD 'quickstep_am'; SET quickstep.enable_pushdown = 'perhaps'");
like($stderr, qr/requires a Boolean value/, 'a bad GUC value is refused when the library is not preloaded too');
is($plain->safe_psql('postgres', 'SELECT 1'), '1', 'the server is still up');
$plain->stop;

done_testing();
