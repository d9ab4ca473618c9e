// GET a URL with Node's built-in fetch (undici) and consume the body stream chunk by chunk:
// write each chunk to the output file (or /dev/null, honouring back-pressure) and update a CRC-32.
import { createWriteStream } from "node:fs";
import { once } from "node:events";
import { crc32 } from "node:zlib";

const [url, out, sink] = process.argv.slice(2);
const file = createWriteStream(sink === "file" ? out : "/dev/null");
const res = await fetch(url);
if (!res.ok) throw new Error(`status ${res.status}`);
let n = 0;
let crc = 0;
for await (const chunk of res.body) {
  crc = crc32(chunk, crc);
  n += chunk.length;
  if (!file.write(chunk)) await once(file, "drain");
}
file.end();
await once(file, "finish");
console.log(`bytes=${n} crc32=${(crc >>> 0).toString(16).padStart(8, "0")}`);
