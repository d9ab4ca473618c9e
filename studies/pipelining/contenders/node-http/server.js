// Hello-world server on Node.js's built-in http module for the pipelining study: GET / answers
// 200 "Hello, World!" (text/plain), anything else 404. Usage: node server.js PORT
'use strict';
const http = require('node:http');

const port = Number(process.argv[2]);
if (!port) {
  console.error('usage: node server.js PORT');
  process.exit(2);
}
const hello = Buffer.from('Hello, World!');

http
  .createServer((req, res) => {
    if (req.url !== '/') {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found');
      return;
    }
    res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': hello.length });
    res.end(hello);
  })
  .listen(port, '127.0.0.1');
