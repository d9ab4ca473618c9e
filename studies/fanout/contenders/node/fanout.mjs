// N concurrent GETs with Promise.all over Node's built-in fetch (undici): one event loop.
// Usage: node fanout.mjs URL N   Prints "fanout_s=<seconds>" (the fan-out timed in here, from the
// first fetch to the last body read, without Node's start-up), then
// "ok=<200 responses> crc32=<distinct body CRC-32s>".
import { crc32 } from "node:zlib";

const [url, nArg] = process.argv.slice(2);
const n = Number(nArg);
const start = performance.now();
const results = await Promise.all(
  Array.from({ length: n }, async () => {
    const r = await fetch(url);
    const body = Buffer.from(await r.arrayBuffer());
    return { status: r.status, crc: (crc32(body) >>> 0).toString(16).padStart(8, "0") };
  }),
);
const fanoutS = (performance.now() - start) / 1000;
const ok = results.filter((r) => r.status === 200).length;
const crcs = [...new Set(results.map((r) => r.crc))].sort();
console.log(`fanout_s=${fanoutS.toFixed(6)}`);
console.log(`ok=${ok} crc32=${crcs.join(",")}`);
process.exitCode = ok === n ? 0 : 1;
