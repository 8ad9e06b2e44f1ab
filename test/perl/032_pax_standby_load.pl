use FindBin;
$ENV{QS_AM} = 'quickstep_pax';
do "$FindBin::RealBin/012_nsm_standby_load.pl";
die $@ if $@;
