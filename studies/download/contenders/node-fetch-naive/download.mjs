// The naive variant: fetch, then await res.arrayBuffer() (the whole body in memory), then write it.
import { writeFile } from "node:fs/promises";
import { crc32 } from "node:zlib";

const [url, out, sink] = process.argv.slice(2);
const res = await fetch(url);
if (!res.ok) throw new Error(`status ${res.status}`);
const body = Buffer.from(await res.arrayBuffer());
await writeFile(sink === "file" ? out : "/dev/null", body);
console.log(`bytes=${body.length} crc32=${(crc32(body) >>> 0).toString(16).padStart(8, "0")}`);
