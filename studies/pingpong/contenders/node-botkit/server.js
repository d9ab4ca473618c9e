// The seed's Botkit ping-pong bot (seed 003, ne-sachirou/exconfjp2017 botkit/src, as its article
// shows it, from Flow/ES modules to plain CommonJS): a Botkit core controller whose spawn
// middleware starts the bot's HTTP receiver (`listen`, the article's code); every request's body
// becomes a Botkit message (`botkit.receiveMessage`), the controller `hears` "ping" and the bot
// replies "pong" through `bot.reply` -> `bot.say` (Botkit's send middleware) -> `bot.send`, which
// answers the HTTP request the message carries. Not in the article and marked below: the Bot
// itself (modelled on Botkit 0.5's own ConsoleBot worker, which the article's HttpBot mirrors),
// the port (the article: 3000), the keep-alive timeout, the listen backlog, and a 400 for a
// message nobody hears.
// Usage: node server.js PORT
'use strict';
const http = require('http');
const Botkit = require('botkit');

const port = Number(process.argv[2] || 3000);

// The article's receiver, with the port from the study.
function listen(botkit, bot) {
  botkit.startTicking();
  const server = http.createServer((req, res) => {
    req.setEncoding('utf8');
    var data = '';
    req.on('data', (chunk) => { data += chunk; });
    req.on('end', () => {
      const message = {
        text: data,
        user: 'user',
        channel: 'http',
        timestamp: Date.now(),
        response: res,
      };
      botkit.receiveMessage(bot, message);
    });
  });
  server.on('clientError', (err, socket) => socket.end('HTTP/1.1 400 Bad Request\r\n\r\n'));
  // Not in the article: the seed's Node (7.x, 2017) had no keep-alive timeout; Node 20's default
  // of 5 s would close the load's idle connections between phases (as in node-http).
  server.keepAliveTimeout = 60000;
  // Not in the article: a backlog of 1024 (Node's default is 511), as every server of this study
  // has, so that the 1000-connection points measure serving, not a full accept queue.
  server.listen({ port: port, backlog: 1024 });
}

// Not in the article: the Bot, as Botkit 0.5's ConsoleBot defines its bot, sending to the HTTP
// response that came with the message instead of to the console.
function Bot(botkit, config) {
  const bot = {
    botkit: botkit,
    config: config || {},
    utterances: botkit.utterances,
  };
  bot.startConversation = function (message, cb) {
    botkit.startConversation(this, message, cb);
  };
  bot.send = function (message, cb) {
    message.response.writeHead(200, { 'Content-Type': 'text/plain' });
    message.response.end(message.text);
    if (cb) cb();
  };
  bot.reply = function (src, resp, cb) {
    var msg = {};
    if (typeof resp == 'string') {
      msg.text = resp;
    } else {
      msg = resp;
    }
    msg.channel = src.channel;
    msg.response = src.response;
    bot.say(msg, cb);
  };
  bot.findConversation = function (message, cb) {
    for (var t = 0; t < botkit.tasks.length; t++) {
      for (var c = 0; c < botkit.tasks[t].convos.length; c++) {
        if (botkit.tasks[t].convos[c].isActive() &&
            botkit.tasks[t].convos[c].source_message.user == message.user) {
          cb(botkit.tasks[t].convos[c]);
          return;
        }
      }
    }
    cb();
  };
  return bot;
}

// The article's HttpBot.
function HttpBot(config) {
  const botkit = Botkit.core(config || {});
  botkit.middleware.spawn.use((bot, next) => {
    listen(botkit, bot);
    next();
  });
  // The article's `(botkit, config) => new Bot(botkit, config)`, as Babel compiled it: Botkit
  // calls it with `new`, which a native arrow function refuses.
  botkit.defineBot(function (botkit, config) { return new Bot(botkit, config); });
  return botkit;
}

// The article's controller.
const controller = HttpBot({ debug: false, stats_optout: true });
controller.spawn();
controller.hears(['ping'], 'message_received', (bot, message) => bot.reply(message, 'pong'));
// Not in the article (where a body without "ping" was never answered): the study's contract,
// 400 for anything else. Botkit calls this only for messages no `hears` took.
controller.on('message_received', (bot, message) => {
  message.response.writeHead(400, { 'Content-Type': 'text/plain' });
  message.response.end('Bad Request');
});
