// @grpc/grpc-js, gRPC's own Node implementation (pure JS), as the server of barrage's tests
// (crates/engine/tests/it/grpc_node.rs): the .proto given is loaded at run time with
// @grpc/proto-loader (no generated code) and its services are served on 127.0.0.1, port chosen
// by the system: barrage.test.v1.Test's methods (docs/grpc/barrage.proto) and a service named
// Failing whose every call fails UNAVAILABLE, with @grpc/reflection's service in the versions
// listed. Prints `port=N` once serving; when stdin ends, stops and prints `calls=N messages=M
// reflection_v1=R1 reflection_v1alpha=R2`: the calls of the file's services it answered, the
// request messages they read, the reflection calls it answered.
//
// Usage: node server.js PROTO [REFLECTION]   (REFLECTION: "v1,v1alpha" by default, or
// "v1alpha", or "" for none)
"use strict";
const grpc = require("@grpc/grpc-js");
const loader = require("@grpc/proto-loader");
const { ReflectionService } = require("@grpc/reflection");

const [proto, versions = "v1,v1alpha"] = process.argv.slice(2);
// int64 and uint64 as JS numbers (the tests' sums are small), bytes as Buffers, unset fields
// as their defaults.
const definition = loader.loadSync(proto, { longs: Number, defaults: true });
const pkg = grpc.loadPackageDefinition(definition).barrage.test.v1;

// The largest reply payload made, as barrage serve's (crates/server/src/grpc.rs).
const MAX_REPLY = 4 << 20;
const counts = { calls: 0, messages: 0, reflection_v1: 0, reflection_v1alpha: 0 };

function answered(messages) {
  counts.calls += 1;
  counts.messages += messages;
}

// n bytes of barrage's /bytes pattern: byte i is i % 251 (crates/wire/src/pattern.rs).
function pattern(n) {
  const b = Buffer.alloc(n);
  for (let i = 0; i < n; i++) b[i] = i % 251;
  return b;
}

function tooLarge(size) {
  return { code: grpc.status.INVALID_ARGUMENT, details: `size ${size} is over ${MAX_REPLY}` };
}

// EchoReply { payload: the request's, or `size` pattern bytes when size > 0; text: the
// request's text }, or the error for too large a size.
function echo(req) {
  if (req.size > MAX_REPLY) return [tooLarge(req.size), null];
  return [null, { payload: req.size > 0 ? pattern(req.size) : req.payload, text: req.text }];
}

const test = {
  Echo(call, callback) {
    answered(1);
    callback(...echo(call.request));
  },
  // `count` replies of `size` pattern bytes, written as the stream takes them.
  Stream(call) {
    answered(1);
    const { count, size } = call.request;
    if (size > MAX_REPLY) return call.destroy(tooLarge(size));
    const reply = { payload: pattern(size) };
    let left = count;
    const more = () => {
      while (left > 0) {
        left -= 1;
        if (!call.write(reply)) return call.once("drain", more);
      }
      call.end();
    };
    more();
  },
  Sum(call, callback) {
    let count = 0;
    let sum = 0;
    call.on("data", (m) => {
      count += 1;
      sum += m.value;
    });
    call.on("end", () => {
      answered(count);
      callback(null, { count, sum });
    });
  },
  Chat(call) {
    let count = 0;
    call.on("data", (m) => {
      count += 1;
      const [err, reply] = echo(m);
      if (err) return call.destroy(err);
      call.write(reply);
    });
    call.on("end", () => {
      answered(count);
      call.end();
    });
  },
};

const failing = {
  Echo(call, callback) {
    answered(1);
    callback({ code: grpc.status.UNAVAILABLE, details: "asked to fail" });
  },
};

const server = new grpc.Server();
server.addService(pkg.Test.service, test);
if (pkg.Failing) server.addService(pkg.Failing.service, failing);

// @grpc/reflection adds both versions to the server it is given: this one adds those asked
// for, each handler counting its calls.
const reflection = new ReflectionService(definition);
const wanted = new Set(versions.split(",").filter((v) => v));
for (const v of wanted) {
  if (v !== "v1" && v !== "v1alpha") throw new Error(`unknown reflection version ${v}`);
}
reflection.addToServer({
  addService(service, impl) {
    const v = Object.values(service)[0].path.startsWith("/grpc.reflection.v1alpha.")
      ? "v1alpha"
      : "v1";
    if (!wanted.has(v)) return;
    const counted = {};
    for (const [name, handler] of Object.entries(impl)) {
      counted[name] = (call) => {
        call.on("end", () => (counts[`reflection_${v}`] += 1));
        return handler(call);
      };
    }
    server.addService(service, counted);
  },
});

server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (err, port) => {
  if (err) throw err;
  process.stdout.write(`port=${port}\n`);
  process.stdin.resume();
  process.stdin.on("end", () => {
    server.forceShutdown();
    const line = Object.entries(counts).map(([k, n]) => `${k}=${n}`);
    process.stdout.write(line.join(" ") + "\n", () => process.exit(0));
  });
});
