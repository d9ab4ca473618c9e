// Hello-world server on Node.js's built-in http and http2 modules for the multiplexing study:
// GET / answers 200 "Hello, World!" (text/plain), anything else 404. Node's http2.createServer
// speaks only h2c, so one port serves both protocols through a net.Server that reads the first
// bytes of each connection: the HTTP/2 connection preface ("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n")
// hands the socket to the http2 server, anything else to the http (HTTP/1.1) server, with the
// bytes read put back first (socket.unshift) and the socket given by emit('connection').
// HTTP/2: up to 256 concurrent streams per connection. Usage: node server.js PORT
'use strict';
const net = require('node:net');
const http = require('node:http');
const http2 = require('node:http2');

const port = Number(process.argv[2]);
if (!port) {
  console.error('usage: node server.js PORT');
  process.exit(2);
}
const hello = Buffer.from('Hello, World!');
const PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n');

// The same handler for both: the compatibility API gives http2 requests req/res objects too.
function handler(req, res) {
  if (req.url !== '/') {
    res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found');
    return;
  }
  res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': hello.length });
  res.end(hello);
}

const h1 = http.createServer({ keepAliveTimeout: 75_000 }, handler);
const h2 = http2.createServer(
  { settings: { maxConcurrentStreams: 256 }, peerMaxConcurrentStreams: 256 },
  handler,
);
// Neither inner server listens: their 'connection' events come from the sniffer below.
h2.on('sessionError', () => {});

net
  .createServer({ noDelay: true }, (socket) => {
    let seen = Buffer.alloc(0);
    const onData = (chunk) => {
      seen = seen.length ? Buffer.concat([seen, chunk]) : chunk;
      const n = Math.min(seen.length, PREFACE.length);
      const prefix = seen.subarray(0, n).equals(PREFACE.subarray(0, n));
      // Undecided while what came so far is a strict prefix of the preface.
      if (prefix && n < PREFACE.length) return;
      socket.removeListener('data', onData);
      socket.pause();
      socket.unshift(seen);
      if (prefix) {
        h2.emit('connection', socket);
      } else {
        h1.emit('connection', socket);
        socket.resume();
      }
    };
    socket.on('data', onData);
    socket.on('error', () => {});
  })
  .listen({ port, host: '127.0.0.1', backlog: 1024 });
