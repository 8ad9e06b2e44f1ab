use FindBin;
$ENV{QS_AM} = 'quickstep_pax';
do "$FindBin::RealBin/011_nsm_pgbench.pl";
die $@ if $@;
