// A Botkit ping-pong bot on its web adapter, in both of the adapter's forms on one port: Botkit
// 4.15's webhook (POST /api/messages, a JSON message in, the bot's replies as a JSON array in
// the response) and the adapter's WebSocket (botbuilder-adapter-web 1.0.10: a JSON message in,
// each reply a JSON message out). The controller `hears('ping', 'message')` and replies "pong"
// (`bot.reply`), through Botkit's middleware, BotBuilder's TurnContext and conversation state,
// as any Botkit 4 bot does.
// Usage: node server.js PORT
//
// Two changes to the adapter as published, both needed by the study and each marked below:
// - Each WebSocket connection is its own user: the adapter files a connection under the `user`
//   field of the last message it sent (a module-global map) and sends a reply to the connection
//   filed under the recipient's id. The load sends the same message on every connection, so one
//   `user` would be shared by all of them and every reply would go to the last connection to
//   send. PerConnectionWebAdapter gives each connection an id of its own (the message's `user`
//   is replaced by it) and keeps its own map; everything else is the adapter's code, unchanged.
// - The web server is this file's (Botkit's own `webserver` option: Botkit then uses it for its
//   webhook), so that it listens with a backlog of 1024 and a 60 s keep-alive timeout as every
//   server of the study does (Botkit's own listens with Node's defaults, 511 and 5 s).
'use strict';
const http = require('node:http');
const express = require('express');
const bodyParser = require('body-parser');
const { Botkit } = require('botkit');
const { WebAdapter } = require('botbuilder-adapter-web');
const { ActivityTypes, TurnContext } = require('botbuilder');

const port = Number(process.argv[2] || process.env.PORT || 3000);

// Changed (see above): the adapter's createSocketServer and the websocket branch of its
// sendActivities, with each connection keyed by its own id.
class PerConnectionWebAdapter extends WebAdapter {
  constructor(server) {
    super();
    this.server = server;
    this.connections = new Map();
    this.nextId = 0;
  }

  // The adapter's init binds to botkit.http, Botkit's own server; this file's server instead.
  init(botkit) {
    botkit.ready(() => {
      this.createSocketServer(this.server, { path: '/ws' }, botkit.handleTurn.bind(botkit));
    });
  }

  createSocketServer(server, socketOptions, logic) {
    const WebSocket = require('ws');
    this.wss = new WebSocket.Server(Object.assign({ server }, socketOptions));
    this.wss.on('connection', (ws) => {
      ws.user = 'ws-' + (++this.nextId);
      this.connections.set(ws.user, ws);
      ws.on('message', (payload) => {
        try {
          const message = JSON.parse(payload);
          message.user = ws.user;
          // As the adapter builds its activity.
          const activity = {
            timestamp: new Date(),
            channelId: 'websocket',
            conversation: { id: message.user },
            from: { id: message.user },
            recipient: { id: 'bot' },
            channelData: message,
            text: message.text,
            type: message.type === 'message' ? ActivityTypes.Message : ActivityTypes.Event,
          };
          if (activity.type !== ActivityTypes.Message) {
            activity.channelData.botkitEventType = message.type;
          }
          const context = new TurnContext(this, activity);
          this.runMiddleware(context, logic).catch((err) => { console.error(err.toString()); });
        } catch (e) {
          console.error('Error parsing incoming message from websocket.', e);
        }
      });
      ws.on('error', (err) => console.error('Websocket Error: ', err));
      ws.on('close', () => this.connections.delete(ws.user));
    });
    // (The adapter's 30 s ping/terminate heartbeat is left out: a run's connections answer pings,
    // so it would only add a ping per connection every 30 s.)
  }

  async sendActivities(context, activities) {
    if (context.activity.channelId !== 'websocket') {
      return super.sendActivities(context, activities);
    }
    for (const activity of activities) {
      const ws = this.connections.get(activity.recipient.id);
      if (ws && ws.readyState === 1) {
        ws.send(JSON.stringify(this.activityToMessage(activity)));
      } else {
        console.error('Could not send message, no open websocket found');
      }
    }
    return [];
  }
}

// The web server Botkit would make (express, its raw-body capture and body parsers), made here.
const app = express();
app.use((req, res, next) => {
  req.rawBody = '';
  req.on('data', (chunk) => { req.rawBody += chunk; });
  next();
});
app.use(bodyParser.json({ limit: '100kb' }));
app.use(bodyParser.urlencoded({ limit: '100kb', extended: true }));
const server = http.createServer(app);

const controller = new Botkit({
  webhook_uri: '/api/messages',
  adapter: new PerConnectionWebAdapter(server),
  webserver: app,
  disable_console: true,
});

controller.hears('ping', 'message', async (bot, message) => {
  await bot.reply(message, 'pong');
});

server.keepAliveTimeout = 60000;
server.listen(port, '127.0.0.1', 1024);
