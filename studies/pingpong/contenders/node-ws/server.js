// Ping-pong on Node.js in both forms on one port: POST / with body "ping" answers 200 "pong",
// anything else 400 (node-http's server, line for line), and /ws upgrades to a WebSocket (the
// `ws` package on the same http server) on which each text message "ping" is answered by a text
// message "pong", anything else by "bad request". One thread, one event loop for both forms.
// Usage: node server.js PORT
'use strict';
const http = require('node:http');
const { WebSocketServer } = require('ws');

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

// ws's defaults otherwise: no permessage-deflate (its server default), 100 MiB max payload.
const wss = new WebSocketServer({ server, path: '/ws' });
wss.on('connection', (ws) => {
  ws.on('message', (data, isBinary) => {
    ws.send(!isBinary && data.toString() === 'ping' ? 'pong' : 'bad request');
  });
});

// Node's default keep-alive timeout (5 s) would close idle load connections between phases.
server.keepAliveTimeout = 60000;
// Backlog 1024 (Node's default is 511): the study opens up to 1000 connections at once.
server.listen(port, '127.0.0.1', 1024);
