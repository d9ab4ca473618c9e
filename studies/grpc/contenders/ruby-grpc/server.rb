# docs/grpc/barrage.proto's barrage.test.v1.Test on Ruby's grpc gem (Debian's ruby-grpc 1.51,
# gRPC's C core under Ruby), with the code Debian's ruby-grpc-tools generates (barrage_pb.rb and
# barrage_services_pb.rb, made by ../../setup.sh), answering as barrage serve does
# (crates/server/src/grpc.rs): Echo and Chat give each request's payload back (or `size` bytes
# of the pattern, byte i = i mod 251, when size > 0) with its text; Stream sends `count` replies
# of `size` pattern bytes; Sum answers the count and the sum of the values it read.
# GRPC::RpcServer's defaults otherwise: a pool of 30 threads, a call (a stream too) holding one.
#
# Usage: ruby server.rb HOST:PORT
$LOAD_PATH.unshift(__dir__)
require 'grpc'
require 'barrage_services_pb'

PB = Barrage::Test::V1
# The largest reply payload made, as barrage serve's.
MAX_REPLY = 4 << 20
PERIOD = (0...251).to_a.pack('C*').freeze

def pattern(n)
  (PERIOD * (n / 251 + 1)).byteslice(0, n)
end

def too_large(size)
  GRPC::InvalidArgument.new("size #{size} is over the #{MAX_REPLY} bytes a reply may have")
end

# Echo's and Chat's reply.
def echo(req)
  raise too_large(req.size) if req.size > MAX_REPLY

  payload = req.size.positive? ? pattern(req.size) : req.payload
  PB::EchoReply.new(payload: payload, text: req.text)
end

class TestServer < PB::Test::Service
  def echo(req, _call)
    Object.send(:echo, req)
  end

  def stream(req, _call)
    raise too_large(req.size) if req.size > MAX_REPLY

    reply = PB::EchoReply.new(payload: pattern(req.size))
    Array.new(req.count, reply)
  end

  def sum(call)
    count = 0
    total = 0
    call.each_remote_read do |req|
      count += 1
      total += req.value
    end
    PB::SumReply.new(count: count, sum: total)
  end

  def chat(requests, _call)
    requests.lazy.map { |req| Object.send(:echo, req) }
  end
end

if ARGV.length != 1
  warn 'usage: ruby server.rb HOST:PORT'
  exit 2
end
server = GRPC::RpcServer.new
server.add_http2_port(ARGV[0], :this_port_is_insecure)
server.handle(TestServer)
server.run_till_terminated_or_interrupted(%w[TERM INT])
