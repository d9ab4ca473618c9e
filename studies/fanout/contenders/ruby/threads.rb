# N concurrent GETs with Ruby threads, one Net::HTTP request per thread.
# Usage: ruby threads.rb URL N   Prints "fanout_s=<seconds>" (the fan-out timed in here, from the
# first thread started to the last joined, without Ruby's start-up), then
# "ok=<200 responses> crc32=<distinct body CRC-32s>".
require 'net/http'
require 'zlib'

url, n = URI(ARGV[0]), Integer(ARGV[1])
start = Process.clock_gettime(Process::CLOCK_MONOTONIC)
threads = Array.new(n) { Thread.new { Net::HTTP.get_response(url) } }
responses = threads.map(&:value)
fanout_s = Process.clock_gettime(Process::CLOCK_MONOTONIC) - start
ok = responses.count { |r| r.code == '200' }
crcs = responses.map { |r| format('%08x', Zlib.crc32(r.body.to_s)) }.uniq.sort
puts format('fanout_s=%.6f', fanout_s)
puts "ok=#{ok} crc32=#{crcs.join(',')}"
exit(ok == n ? 0 : 1)
