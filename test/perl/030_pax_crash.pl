use FindBin;
$ENV{QS_AM} = 'quickstep_pax';
do "$FindBin::RealBin/010_nsm_crash.pl";
die $@ if $@;
