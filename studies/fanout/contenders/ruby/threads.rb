# N concurrent GETs with Ruby threads, one Net::HTTP request per thread.
# Usage: ruby threads.rb URL N   Prints "ok=<200 responses> crc32=<distinct body CRC-32s>".
require 'net/http'
require 'zlib'

url, n = URI(ARGV[0]), Integer(ARGV[1])
threads = Array.new(n) { Thread.new { Net::HTTP.get_response(url) } }
responses = threads.map(&:value)
ok = responses.count { |r| r.code == '200' }
crcs = responses.map { |r| format('%08x', Zlib.crc32(r.body.to_s)) }.uniq.sort
puts "ok=#{ok} crc32=#{crcs.join(',')}"
exit(ok == n ? 0 : 1)
