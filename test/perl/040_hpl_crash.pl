# 010_nsm_crash on quickstep_hpl.  The test modules are loaded here, at compile time,
# so that their INIT blocks run (they do not inside "do").
use FindBin;
use PostgreSQL::Test::Utils;
use PostgreSQL::Test::Cluster;
$ENV{QS_AM} = 'quickstep_hpl';
do "$FindBin::RealBin/010_nsm_crash.pl";
die $@ if $@;
