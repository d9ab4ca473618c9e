# Ping-pong server on WEBrick (Debian's ruby-webrick): POST / with body "ping" answers "pong",
# anything else 400. WEBrick runs one thread per connection.
require 'webrick'

port = Integer(ARGV[0] || ENV.fetch('PORT', '8080'))
server = WEBrick::HTTPServer.new(
  BindAddress: '127.0.0.1',
  Port: port,
  # Silence: one log line per request would measure the logger.
  Logger: WEBrick::Log.new(File::NULL),
  AccessLog: [],
  # The study opens up to 1000 connections at once (WEBrick's default cap is 100).
  MaxClients: 2000,
  # Keep idle load connections open between requests.
  RequestTimeout: 60
)
# WEBrick writes the head and the body of a response separately: without TCP_NODELAY, Nagle's
# algorithm holds the body until the client's delayed ACK (~40 ms per request). Linux passes the
# listening socket's TCP_NODELAY on to every accepted connection.
server.listeners.each { |s| s.setsockopt(Socket::IPPROTO_TCP, Socket::TCP_NODELAY, 1) }
server.mount_proc '/' do |req, res|
  res['Content-Type'] = 'text/plain'
  if req.request_method == 'POST' && req.path == '/' && req.body == 'ping'
    res.body = 'pong'
  else
    res.status = 400
    res.body = 'bad request'
  end
end
%w[INT TERM].each { |sig| trap(sig) { server.shutdown } }
server.start
