// 50 GETs per iteration, repeated for a fixed time, with node:http, sequentially or concurrently
// on the event loop (async), through an http.Agent with keep-alive on or off.
// Usage: node keepalive.mjs URL SECONDS MODE CONCURRENCY
// URL is .../bytes/{size}: every odd request of an iteration adds ?chunked=1, and every body is
// checked against the server's pattern (byte i = i % 251); or .../sleep/{ms} (the latency-bound
// variant): every body must be "slept {ms} ms\n". MODE: seq-close, seq-keepalive, async-close,
// async-keepalive.
import http from "node:http";

const PER_ITERATION = 50;
const [url, secondsArg, mode, concArg] = process.argv.slice(2);
const seconds = Number(secondsArg);
const conc = Number(concArg);
// The body every response must have, and whether odd requests ask for chunked framing.
const path = new URL(url).pathname;
let expected;
let chunkOdd;
if (/^\/bytes\/\d+$/.test(path)) {
  const size = Number(path.slice("/bytes/".length));
  expected = Buffer.alloc(size);
  for (let i = 0; i < size; i++) expected[i] = i % 251;
  chunkOdd = true;
} else if (/^\/sleep\/\d+$/.test(path)) {
  expected = Buffer.from(`slept ${Number(path.slice("/sleep/".length))} ms\n`);
  chunkOdd = false;
} else {
  console.error(`unsupported URL ${url}: .../bytes/{size} or .../sleep/{ms}`);
  process.exit(2);
}
const modes = ["seq-close", "seq-keepalive", "async-close", "async-keepalive"];
if (!modes.includes(mode)) {
  console.error(`unknown mode ${mode}`);
  process.exit(2);
}
const agent = new http.Agent({ keepAlive: mode.endsWith("-keepalive"), maxSockets: conc });

function get(u) {
  return new Promise((resolve) => {
    http
      .get(u, { agent }, (res) => {
        const chunks = [];
        res.on("data", (c) => chunks.push(c));
        res.on("end", () => resolve(res.statusCode === 200 && Buffer.concat(chunks).equals(expected)));
        res.on("error", () => resolve(false));
      })
      .on("error", (e) => {
        console.error(e.message);
        resolve(false);
      });
  });
}

const urls = Array.from({ length: PER_ITERATION }, (_, i) => url + (chunkOdd && i % 2 ? "?chunked=1" : ""));
let iterations = 0;
let bad = 0;
const start = performance.now();
while ((performance.now() - start) / 1000 < seconds) {
  if (mode.startsWith("async")) {
    // conc concurrent chains share the iteration's 50 requests.
    let next = 0;
    const worker = async () => {
      while (next < PER_ITERATION) if (!(await get(urls[next++]))) bad++;
    };
    await Promise.all(Array.from({ length: conc }, worker));
  } else {
    for (const u of urls) if (!(await get(u))) bad++;
  }
  iterations++;
}
const elapsed = (performance.now() - start) / 1000;
const n = iterations * PER_ITERATION;
console.log(
  `iterations=${iterations} requests=${n} bad=${bad} seconds=${elapsed.toFixed(3)} ` +
    `iterations_per_s=${(iterations / elapsed).toFixed(2)} requests_per_s=${(n / elapsed).toFixed(1)}`,
);
agent.destroy();
process.exitCode = bad === 0 ? 0 : 1;
