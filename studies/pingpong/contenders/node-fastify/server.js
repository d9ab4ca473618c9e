// Ping-pong server on Fastify: POST / with body "ping" answers "pong", anything else 400.
'use strict';
const fastify = require('fastify')({ logger: false, keepAliveTimeout: 60000 });

const port = Number(process.argv[2] || process.env.PORT || 8080);

// Fastify parses only JSON bodies by default; the ping is plain text of any content type.
fastify.removeAllContentTypeParsers();
fastify.addContentTypeParser('*', { parseAs: 'string' }, (req, body, done) => done(null, body));

fastify.post('/', async (request, reply) => {
  if (request.body !== 'ping') {
    reply.code(400);
    return 'bad request';
  }
  reply.type('text/plain');
  return 'pong';
});

// Backlog 1024 (Node's default is 511): the study opens up to 1000 connections at once.
fastify.listen({ port, host: '127.0.0.1', backlog: 1024 }).catch((err) => {
  console.error(err);
  process.exit(1);
});
