// docs/grpc/barrage.proto's barrage.test.v1.Test on @grpc/grpc-js, gRPC's own Node
// implementation (pure JavaScript, one event loop), the .proto loaded at run time with
// @grpc/proto-loader (Node's usual way: no generated code), answering as barrage serve does
// (crates/server/src/grpc.rs): Echo and Chat give each request's payload back (or `size` bytes
// of the pattern, byte i = i mod 251, when size > 0) with its text; Stream sends `count` replies
// of `size` pattern bytes; Sum answers the count and the sum of the values it read.
//
// Usage: node server.js HOST:PORT
"use strict";
const path = require("path");
const grpc = require("@grpc/grpc-js");
const loader = require("@grpc/proto-loader");

const addr = process.argv[2];
if (!addr) {
  console.error("usage: node server.js HOST:PORT");
  process.exit(2);
}
const proto = path.join(__dirname, "../../../../docs/grpc/barrage.proto");
// int64 and uint64 as JS numbers, bytes as Buffers, unset fields as their defaults.
const definition = loader.loadSync(proto, { longs: Number, defaults: true });
const pkg = grpc.loadPackageDefinition(definition).barrage.test.v1;

// The largest reply payload made, as barrage serve's.
const MAX_REPLY = 4 << 20;

function pattern(n) {
  const b = Buffer.alloc(n);
  for (let i = 0; i < n; i++) b[i] = i % 251;
  return b;
}

function tooLarge(size) {
  return {
    code: grpc.status.INVALID_ARGUMENT,
    details: `size ${size} is over the ${MAX_REPLY} bytes a reply may have`,
  };
}

// Echo's and Chat's reply, or null when `size` asks for too much.
function echo(req) {
  if (req.size > MAX_REPLY) return null;
  return { payload: req.size > 0 ? pattern(req.size) : req.payload, text: req.text };
}

const server = new grpc.Server();
server.addService(pkg.Test.service, {
  Echo(call, callback) {
    const reply = echo(call.request);
    if (reply === null) callback(tooLarge(call.request.size));
    else callback(null, reply);
  },
  Stream(call) {
    const { count, size } = call.request;
    if (size > MAX_REPLY) {
      call.emit("error", tooLarge(size));
      return;
    }
    const reply = { payload: pattern(size) };
    for (let i = 0; i < count; i++) call.write(reply);
    call.end();
  },
  Sum(call, callback) {
    let count = 0;
    let sum = 0;
    call.on("data", (req) => {
      count += 1;
      sum += req.value;
    });
    call.on("end", () => callback(null, { count, sum }));
  },
  Chat(call) {
    call.on("data", (req) => {
      const reply = echo(req);
      if (reply === null) call.emit("error", tooLarge(req.size));
      else call.write(reply);
    });
    call.on("end", () => call.end());
  },
});
server.bindAsync(addr, grpc.ServerCredentials.createInsecure(), (err) => {
  if (err) {
    console.error(err.message);
    process.exit(1);
  }
});
