# 50 GETs of a small /bytes body per iteration, repeated for a fixed time, one of six ways:
# Net::HTTP sequential or from threads, and fibers with async-http (Debian ruby-async-http),
# each with or without keep-alive.
#
# Usage: ruby keepalive.rb URL SECONDS MODE CONCURRENCY
# URL is .../bytes/{size}; every odd request of an iteration adds ?chunked=1, and every body is
# checked against the server's pattern (byte i = i % 251). MODE: seq-close, seq-keepalive,
# threads-close, threads-keepalive, fibers-close, fibers-keepalive.
require 'net/http'

PER_ITERATION = 50
url, seconds, mode, conc = ARGV[0], Float(ARGV[1]), ARGV[2], Integer(ARGV[3])
size = Integer(url[(url.rindex('/') + 1)..])
EXPECTED = Array.new(size) { |i| i % 251 }.pack('C*').freeze
MODES = %w[seq-close seq-keepalive threads-close threads-keepalive fibers-close fibers-keepalive].freeze
abort "unknown mode #{mode}" unless MODES.include?(mode)
keepalive = mode.end_with?('-keepalive')
uris = Array.new(PER_ITERATION) { |i| URI(url + (i.odd? ? '?chunked=1' : '')) }

def good?(code, body)
  code.to_i == 200 && body == EXPECTED
end

# Net::HTTP: a started session keeps its connection; Net::HTTP.get_response opens one per call.
def net_http_get(http, uri)
  res = http ? http.request(Net::HTTP::Get.new(uri)) : Net::HTTP.get_response(uri)
  good?(res.code, res.body)
end

iterations = 0
bad = 0
start = Process.clock_gettime(Process::CLOCK_MONOTONIC)
elapsed = -> { Process.clock_gettime(Process::CLOCK_MONOTONIC) - start }

case mode
when /\Aseq-/
  http = keepalive ? Net::HTTP.start(uris[0].host, uris[0].port) : nil
  while elapsed.call < seconds
    uris.each { |u| bad += 1 unless net_http_get(http, u) }
    iterations += 1
  end
when /\Athreads-/
  # conc threads, each with its own connection (keep-alive) or a new one per request, pull the
  # iteration's requests from a queue.
  sessions = Array.new(conc) { keepalive ? Net::HTTP.start(uris[0].host, uris[0].port) : nil }
  while elapsed.call < seconds
    queue = Queue.new
    uris.each { |u| queue << u }
    queue.close
    bad += sessions.map do |http|
      Thread.new do
        n = 0
        while (u = queue.pop)
          n += 1 unless net_http_get(http, u)
        end
        n
      end
    end.sum(&:value)
    iterations += 1
  end
else
  require 'async'
  require 'async/semaphore'
  require 'async/http/client'
  require 'async/http/endpoint'
  endpoint = Async::HTTP::Endpoint.parse(url)
  Async do
    # Keep-alive: one client whose pool holds up to conc persistent connections.
    # Close: a new client (so a new connection) per request, closed after it.
    shared = keepalive ? Async::HTTP::Client.new(endpoint, connection_limit: conc) : nil
    semaphore = Async::Semaphore.new(conc)
    while elapsed.call < seconds
      tasks = uris.map do |u|
        semaphore.async do
          client = shared || Async::HTTP::Client.new(endpoint)
          begin
            res = client.get(u.request_uri)
            good?(res.status, res.read)
          ensure
            client.close unless shared
          end
        end
      end
      bad += tasks.count { |t| !t.wait }
      iterations += 1
    end
    shared&.close
  end
end

secs = elapsed.call
n = iterations * PER_ITERATION
puts format('iterations=%d requests=%d bad=%d seconds=%.3f iterations_per_s=%.2f requests_per_s=%.1f',
            iterations, n, bad, secs, iterations / secs, n / secs)
exit(bad.zero? ? 0 : 1)
