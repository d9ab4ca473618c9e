#!/usr/bin/perl
# N concurrent GETs with Perl ithreads, one LWP::UserAgent request per thread.
# Usage: perl ithreads.pl URL N   Prints "fanout_s=<seconds>" (the fan-out timed in here, from
# the first thread created to the last joined, without Perl's start-up), then
# "ok=<200 responses> crc32=<distinct body CRC-32s>".
use strict;
use warnings;
use threads;
use LWP::UserAgent;
use Compress::Zlib qw(crc32);
use Time::HiRes qw(clock_gettime CLOCK_MONOTONIC);

my ($url, $n) = @ARGV;
my $start = clock_gettime(CLOCK_MONOTONIC);
my @threads = map {
    threads->create(sub {
        my $res = LWP::UserAgent->new->get($url);
        return ($res->code, $res->content);
    });
} 1 .. $n;
my @answers = map { [ $_->join ] } @threads;
my $fanout_s = clock_gettime(CLOCK_MONOTONIC) - $start;
my ($ok, %crcs) = (0);
for my $answer (@answers) {
    my ($code, $body) = @$answer;
    $ok++ if $code == 200;
    $crcs{sprintf('%08x', crc32($body))} = 1;
}
printf "fanout_s=%.6f\n", $fanout_s;
print "ok=$ok crc32=", join(',', sort keys %crcs), "\n";
exit($ok == $n ? 0 : 1);
