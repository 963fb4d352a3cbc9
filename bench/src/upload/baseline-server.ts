// Entry point of the upload benchmark's baseline: a bare node:http server, in a process of its own as the
// API is, that streams each PUT body to a file in DATA_DIR and answers 204. What the API's upload path
// adds (Koa, the signature and row checks, tus, its lock) is measured against it.
import { createWriteStream } from "node:fs";
import { createServer } from "node:http";
import path from "node:path";
import { pipeline } from "node:stream/promises";

const dir = process.env.DATA_DIR ?? ".";
let count = 0;
const server = createServer((req, res) => {
  count += 1;
  pipeline(req, createWriteStream(path.join(dir, `baseline-${count}`))).then(
    () => res.writeHead(204).end(),
    () => res.writeHead(500).end(),
  );
});
server.listen(0, "127.0.0.1", () => {
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  console.log(JSON.stringify({ msg: "baseline ready", url: `http://127.0.0.1:${port}` }));
});
process.stdin.on("end", () => server.close(() => process.exit(0))).resume();
