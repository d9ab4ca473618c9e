// GET a URL with node:http's http.get and pipe the response into the output file (or /dev/null);
// a 'data' listener alongside the pipe updates the CRC-32 (pipe handles back-pressure).
import http from "node:http";
import { createWriteStream } from "node:fs";
import { pipeline } from "node:stream/promises";
import { crc32 } from "node:zlib";

const [url, out, sink] = process.argv.slice(2);
const res = await new Promise((resolve, reject) => http.get(url, resolve).on("error", reject));
if (res.statusCode !== 200) throw new Error(`status ${res.statusCode}`);
let n = 0;
let crc = 0;
res.on("data", (chunk) => {
  crc = crc32(chunk, crc);
  n += chunk.length;
});
await pipeline(res, createWriteStream(sink === "file" ? out : "/dev/null"));
console.log(`bytes=${n} crc32=${(crc >>> 0).toString(16).padStart(8, "0")}`);
