#!/usr/bin/perl
# N concurrent GETs with Perl ithreads, one LWP::UserAgent request per thread.
# Usage: perl ithreads.pl URL N   Prints "ok=<200 responses> crc32=<distinct body CRC-32s>".
use strict;
use warnings;
use threads;
use LWP::UserAgent;
use Compress::Zlib qw(crc32);

my ($url, $n) = @ARGV;
my @threads = map {
    threads->create(sub {
        my $res = LWP::UserAgent->new->get($url);
        return ($res->code, $res->content);
    });
} 1 .. $n;
my ($ok, %crcs) = (0);
for my $t (@threads) {
    my ($code, $body) = $t->join;
    $ok++ if $code == 200;
    $crcs{sprintf('%08x', crc32($body))} = 1;
}
print "ok=$ok crc32=", join(',', sort keys %crcs), "\n";
exit($ok == $n ? 0 : 1);
