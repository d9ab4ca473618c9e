// Ping-pong server on Node.js's built-in http module: POST / with body "ping" answers "pong",
// anything else 400.
'use strict';
const http = require('node:http');

const port = Number(process.argv[2] || process.env.PORT || 8080);

const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const ok = req.method === 'POST' && req.url === '/' && Buffer.concat(chunks).toString() === 'ping';
    res.writeHead(ok ? 200 : 400, { 'Content-Type': 'text/plain' });
    res.end(ok ? 'pong' : 'bad request');
  });
});
// Node's default keep-alive timeout (5 s) would close idle load connections between phases.
server.keepAliveTimeout = 60000;
// Backlog 1024 (Node's default is 511): the study opens up to 1000 connections at once.
server.listen(port, '127.0.0.1', 1024);
