# What keepalive.rb and rawfiber.rb share: the iteration of 50 GETs of one URL, the body check,
# the timed loop, the allocation count of one iteration (as benchmark-memory counts) and the
# line the lab reads.
require 'objspace'
require 'uri'

PER_ITERATION = 50

# The body every response must have, and whether odd requests ask for a chunked answer, for a
# URL of .../bytes/{size} (the /bytes pattern, byte i = i % 251) or .../sleep/{ms}.
def expected_for(url)
  case URI(url).path
  when %r{\A/bytes/(\d+)\z} then [Array.new(Integer($1)) { |i| i % 251 }.pack('C*').freeze, true]
  when %r{\A/sleep/(\d+)\z} then ["slept #{Integer($1)} ms\n".freeze, false]
  else abort "unsupported URL #{url}: .../bytes/{size} or .../sleep/{ms}"
  end
end

# The iteration's 50 request URIs: every odd one answered chunked (?chunked=1) for /bytes.
def iteration_uris(url, chunk_odd)
  Array.new(PER_ITERATION) { |i| URI(url + (chunk_odd && i.odd? ? '?chunked=1' : '')) }
end

# The allocations of one iteration (`block`), counted as benchmark-memory (memory_profiler) counts
# them, which the original study printed: the GC is off while the iteration runs, so every object
# it allocates is still there afterwards; objects are those whose allocation was traced in it, and
# bytes the sum of their ObjectSpace.memsize_of (the object's slot plus the buffers it mallocs:
# string bodies, arrays, hashes). It is what the iteration allocated, not what it retained, and
# it misses memory allocated outside Ruby objects (the C library's own buffers). Run after the
# timed loop, on warm connections, the same work it repeated; returns [objects, bytes, bad].
def allocations
  GC.start
  GC.disable
  generation = GC.count
  ObjectSpace.trace_object_allocations_start
  bad = yield
  ObjectSpace.trace_object_allocations_stop
  objects = bytes = 0
  ObjectSpace.each_object do |o|
    next unless ObjectSpace.allocation_generation(o) == generation
    objects += 1
    bytes += ObjectSpace.memsize_of(o)
  end
  [objects, bytes, bad]
ensure
  ObjectSpace.trace_object_allocations_stop
  GC.enable
end

# Runs `iteration` (returning its count of bad responses) for `seconds`, then once more under
# `allocations` when asked; returns [iterations, bad, elapsed, allocation figures or nil].
def timed(seconds, measure)
  iterations = bad = 0
  start = Process.clock_gettime(Process::CLOCK_MONOTONIC)
  elapsed = -> { Process.clock_gettime(Process::CLOCK_MONOTONIC) - start }
  while elapsed.call < seconds
    bad += yield
    iterations += 1
  end
  secs = elapsed.call
  figures = nil
  if measure
    objects, bytes, more_bad = allocations { yield }
    bad += more_bad
    figures = [objects, bytes]
  end
  [iterations, bad, secs, figures]
end

# Prints the line the lab reads and exits 0 only when every response was right.
def report(result)
  iterations, bad, secs, figures = result
  n = iterations * PER_ITERATION
  line = format('iterations=%d requests=%d bad=%d seconds=%.3f iterations_per_s=%.2f requests_per_s=%.1f',
                iterations, n, bad, secs, iterations / secs, n / secs)
  line += format(' alloc_objects=%d alloc_bytes=%d', *figures) if figures
  puts line
  exit(bad.zero? ? 0 : 1)
end
