# 50 GETs per iteration, repeated for a fixed time, one of eight ways: Net::HTTP sequential, from
# threads, or from fibers under Ruby 3's Fiber scheduler (Debian ruby-async's Async::Scheduler:
# Net::HTTP itself unchanged, its socket waits become fiber switches -- the seed's "modify
# Net::HTTP to use Fiber" case), and fibers with async-http (Debian ruby-async-http), each with or
# without keep-alive.
#
# Usage: ruby keepalive.rb URL SECONDS MODE CONCURRENCY [alloc]
# URL is .../bytes/{size} (every odd request of an iteration adds ?chunked=1, and every body is
# checked against the server's pattern, byte i = i % 251) or .../sleep/{ms} (every body must be
# "slept {ms} ms\n": the latency-bound variant). MODE: seq-close, seq-keepalive, threads-close,
# threads-keepalive, nethttp-fibers-close, nethttp-fibers-keepalive, fibers-close,
# fibers-keepalive.
# Prints "iterations=N requests=M bad=B seconds=S iterations_per_s=X requests_per_s=Y"; with
# `alloc`, also "alloc_objects=O alloc_bytes=A": the allocations of one iteration (see below).
require 'net/http'
require_relative 'common'

url, seconds, mode, conc, alloc = ARGV[0], Float(ARGV[1]), ARGV[2], Integer(ARGV[3]), ARGV[4]
abort "the fifth argument can only be `alloc`, not #{alloc}" unless [nil, 'alloc'].include?(alloc)
MODES = %w[seq-close seq-keepalive threads-close threads-keepalive nethttp-fibers-close nethttp-fibers-keepalive
           fibers-close fibers-keepalive].freeze
abort "unknown mode #{mode}" unless MODES.include?(mode)
EXPECTED, chunk_odd = expected_for(url)
keepalive = mode.end_with?('-keepalive')
uris = iteration_uris(url, chunk_odd)

def good?(code, body)
  code.to_i == 200 && body == EXPECTED
end

# Net::HTTP: a started session keeps its connection; Net::HTTP.get_response opens one per call.
def net_http_get(http, uri)
  res = http ? http.request(Net::HTTP::Get.new(uri)) : Net::HTTP.get_response(uri)
  good?(res.code, res.body)
end

measure = alloc == 'alloc'
result =
  case mode
  when /\Aseq-/
    http = keepalive ? Net::HTTP.start(uris[0].host, uris[0].port) : nil
    timed(seconds, measure) { uris.count { |u| !net_http_get(http, u) } }
  when /\Athreads-/
    # conc threads, each with its own connection (keep-alive) or a new one per request, pull the
    # iteration's requests from a queue.
    sessions = Array.new(conc) { keepalive ? Net::HTTP.start(uris[0].host, uris[0].port) : nil }
    timed(seconds, measure) do
      queue = Queue.new
      uris.each { |u| queue << u }
      queue.close
      sessions.map do |http|
        Thread.new do
          n = 0
          while (u = queue.pop)
            n += 1 unless net_http_get(http, u)
          end
          n
        end
      end.sum(&:value)
    end
  when /\Anethttp-fibers-/
    # Net::HTTP, unchanged, in conc fibers under the Fiber scheduler that Async (1.x, Ruby >= 3.0)
    # installs: every wait of its sockets (connect, read, write) yields to the other fibers. As
    # threads-*: each worker fiber has its own connection (keep-alive) or a new one per request
    # and pulls the iteration's requests from a shared list (fibers switch only at those waits).
    require 'async'
    abort 'no Fiber scheduler in this Ruby/async' unless Async::Scheduler.supported?
    Async do |top|
      abort 'Async did not install a Fiber scheduler' unless Fiber.scheduler
      sessions = Array.new(conc) { keepalive ? Net::HTTP.start(uris[0].host, uris[0].port) : nil }
      r = timed(seconds, measure) do
        queue = uris.dup
        sessions.map do |http|
          top.async do
            n = 0
            while (u = queue.shift)
              n += 1 unless net_http_get(http, u)
            end
            n
          end
        end.sum(&:wait)
      end
      sessions.each { |http| http&.finish }
      r
    end.wait
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
      r = timed(seconds, measure) do
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
        tasks.count { |t| !t.wait }
      end
      shared&.close
      r
    end.wait
  end

report(result)
