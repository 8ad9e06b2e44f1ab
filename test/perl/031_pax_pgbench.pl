# 011_nsm_pgbench.pl on quickstep_pax.  The test modules are loaded at compile time so
# that their INIT blocks run (a module first loaded inside "do" is too late).
use PostgreSQL::Test::Utils;
use PostgreSQL::Test::Cluster;
use FindBin;
$ENV{QS_AM} = 'quickstep_pax';
do "$FindBin::RealBin/011_nsm_pgbench.pl";
die $@ if $@;
