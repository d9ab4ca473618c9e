# The seed's own "Fiber" client of its tests 1-3: plain Ruby fibers over non-blocking TCP sockets
# with a select loop of their own (no gem, no Fiber scheduler), writing the request and reading
# the answer with read_nonblock(N). The seed read 1 byte at a time first (test 1), then 102400
# (tests 2-3), and found the 1-byte reads allocated far more; both are here, with and without
# keep-alive. Unlike the seed's client, which "only extracts the response content" and could not
# decode chunked answers, this one frames every answer by Content-Length or chunked encoding and
# checks its body like every contender here (so it does the work the others do).
#
# Usage: ruby rawfiber.rb URL SECONDS MODE CONCURRENCY READ_SIZE [alloc]
# MODE: close (a new connection per request, `Connection: close`) or keepalive (each fiber keeps
# its connection); READ_SIZE: bytes per read_nonblock (1, 102400). CONCURRENCY fibers share an
# iteration's 50 requests. Prints the line of keepalive.rb (common.rb).
require 'socket'
require_relative 'common'

url, seconds, mode, conc, read_size, alloc = ARGV[0], Float(ARGV[1]), ARGV[2], Integer(ARGV[3]),
                                             Integer(ARGV[4]), ARGV[5]
abort "the sixth argument can only be `alloc`, not #{alloc}" unless [nil, 'alloc'].include?(alloc)
abort "unknown mode #{mode}: close or keepalive" unless %w[close keepalive].include?(mode)
abort 'READ_SIZE must be at least 1' unless read_size >= 1
EXPECTED, chunk_odd = expected_for(url)
KEEPALIVE = mode == 'keepalive'
READ_SIZE = read_size
uris = iteration_uris(url, chunk_odd)
HOST = uris[0].host
PORT = uris[0].port

# A wait of the running fiber: yields what it waits for to the loop in `run_fibers`.
def wait_for(kind, io)
  Fiber.yield(kind, io)
end

def connect
  sock = Socket.new(Socket::AF_INET, Socket::SOCK_STREAM)
  sock.setsockopt(Socket::IPPROTO_TCP, Socket::TCP_NODELAY, 1)
  addr = Socket.sockaddr_in(PORT, HOST)
  begin
    sock.connect_nonblock(addr)
  rescue IO::WaitWritable
    wait_for(:write, sock)
    begin
      sock.connect_nonblock(addr)
    rescue Errno::EISCONN
      nil
    end
  end
  sock
end

def write_all(sock, data)
  until data.empty?
    n = sock.write_nonblock(data, exception: false)
    if n == :wait_writable
      wait_for(:write, sock)
    else
      data = data.byteslice(n..)
    end
  end
end

# Appends the next read to `buf`; false at end of stream.
def fill(sock, buf)
  loop do
    chunk = sock.read_nonblock(READ_SIZE, exception: false)
    case chunk
    when :wait_readable then wait_for(:read, sock)
    when nil then return false
    else
      buf << chunk
      return true
    end
  end
end

# Bytes until `buf` holds `n`; false if the stream ended first.
def need(sock, buf, n)
  while buf.bytesize < n
    return false unless fill(sock, buf)
  end
  true
end

# Reads one answer from `sock` (bytes left over stay in `buf`): [status, body] or nil when the
# stream ended or the framing was broken.
def read_response(sock, buf)
  until (head_end = buf.index("\r\n\r\n"))
    return nil unless fill(sock, buf)
  end
  head = buf.byteslice(0, head_end)
  buf.replace(buf.byteslice(head_end + 4..))
  status = head[/\AHTTP\/1\.\d (\d{3})/, 1]&.to_i
  return nil unless status
  if head =~ /^transfer-encoding:\s*chunked\s*$/i
    body = +''
    loop do
      until (eol = buf.index("\r\n"))
        return nil unless fill(sock, buf)
      end
      digits = buf.byteslice(0, eol)[/\A\h+/]
      return nil unless digits
      size = Integer(digits, 16)
      buf.replace(buf.byteslice(eol + 2..))
      if size.zero?
        # No trailers from barrage's server: the last CRLF.
        return nil unless need(sock, buf, 2)
        buf.replace(buf.byteslice(2..))
        return [status, body]
      end
      return nil unless need(sock, buf, size + 2)
      body << buf.byteslice(0, size)
      buf.replace(buf.byteslice(size + 2..))
    end
  elsif (len = head[/^content-length:\s*(\d+)\s*$/i, 1])
    n = Integer(len)
    return nil unless need(sock, buf, n)
    body = buf.byteslice(0, n)
    buf.replace(buf.byteslice(n..))
    [status, body]
  end
end

# One GET on `conn` ([socket, buffer], or nil: a new connection for this request): whether the
# answer was right.
def get(conn, uri)
  sock, buf = conn || [connect, +'']
  write_all(sock, "GET #{uri.request_uri} HTTP/1.1\r\nHost: #{HOST}:#{PORT}\r\n" \
                  "#{KEEPALIVE ? '' : "Connection: close\r\n"}\r\n")
  res = read_response(sock, buf)
  sock.close unless conn
  !res.nil? && res[0] == 200 && res[1] == EXPECTED
rescue SystemCallError, IOError
  false
end

# Runs the fibers to the end: each resume returns what the fiber waits for (or nothing when it
# ended); waiting fibers are resumed when IO.select finds their socket ready.
def run_fibers(fibers)
  readers = {}
  writers = {}
  ready = fibers.dup
  results = {}
  until ready.empty? && readers.empty? && writers.empty?
    ready.each do |f|
      got = f.resume
      if f.alive?
        kind, io = got
        (kind == :read ? readers : writers)[io] = f
      else
        results[f] = got
      end
    end
    ready = []
    next if readers.empty? && writers.empty?

    r, w = IO.select(readers.keys, writers.keys)
    r.each { |io| ready << readers.delete(io) }
    w.each { |io| ready << writers.delete(io) }
  end
  fibers.map { |f| results[f] }
end

connections = Array.new(conc) { nil }
if KEEPALIVE
  # Each fiber's connection, opened by the fibers themselves.
  connections = run_fibers(Array.new(conc) { Fiber.new { [connect, +''] } })
end

result = timed(seconds, alloc == 'alloc') do
  queue = uris.dup
  fibers = connections.map do |conn|
    Fiber.new do
      bad = 0
      while (u = queue.shift)
        bad += 1 unless get(conn, u)
      end
      bad
    end
  end
  run_fibers(fibers).sum
end
report(result)
