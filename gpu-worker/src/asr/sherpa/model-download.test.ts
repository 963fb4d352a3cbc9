// The downloader itself, in process, against the test HTTPS server: the ways a connection fails
// that the models:download rehearsal (cli/models-download-mirror.test.ts) does not drive.
import assert from "node:assert/strict";
import { createHash, randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { startTestHttpsServer, type TestHttpsServer } from "@caption/shared/testing/https-server";
import { downloadFile, ModelDownloadError } from "./model-download.ts";

const body = randomBytes(64 * 1024);
const sha256 = createHash("sha256").update(body).digest("hex");
let server: TestHttpsServer;
let dir: string;

before(async () => {
  server = await startTestHttpsServer();
  dir = await mkdtemp(join(tmpdir(), "model-download-"));
});
after(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

/** Answers request n (from 1) with `answer(n, from)`; `from` is the Range start asked for, if any. */
function serve(path: string, answer: (n: number, from: number | undefined, res: ServerResponse) => void): void {
  let n = 0;
  server.route(path, (req: IncomingMessage, res: ServerResponse) => {
    const from = /^bytes=(\d+)-$/.exec(req.headers.range ?? "")?.[1];
    answer(++n, from === undefined ? undefined : Number(from), res);
  });
}

const partial = (from: number, res: ServerResponse) =>
  res.writeHead(206, { "content-length": body.length - from, "content-range": `bytes ${from}-${body.length - 1}/${body.length}` }).end(body.subarray(from));

async function fetchInto(path: string, idleTimeoutMs?: number) {
  const lines: string[] = [];
  const destination = join(dir, `${path.slice(1)}.bin`);
  const result = await downloadFile(server.url(path), destination, {
    sha256,
    size: body.length,
    pinnedBy: "the manifest",
    label: "test",
    signal: new AbortController().signal,
    report: (line) => lines.push(line),
    ...(idleTimeoutMs !== undefined ? { idleTimeoutMs } : {}),
  });
  return { result, lines, bytes: await readFile(destination) };
}

test("a body that goes silent is given up after the idle time and resumed where it stopped", async () => {
  serve("/silent", (n, from, res) => {
    if (n === 1) res.writeHead(200, { "content-length": body.length }).write(body.subarray(0, 1000));
    else partial(from ?? 0, res);
  });
  const { result, lines, bytes } = await fetchInto("/silent", 300);
  assert.deepEqual(result, { sha256, size: body.length });
  assert.ok(bytes.equals(body));
  assert.ok(lines.some((l) => /connection lost at 0\.0 MB \(nothing for 0\.3 s\); resuming/.test(l)), lines.join("\n"));
});

test("a server that closes cleanly but early is resumed too", async () => {
  serve("/short", (n, from, res) => {
    // No Content-Length: the end of the body looks like success, but the pinned size says otherwise.
    if (n === 1) res.writeHead(200).end(body.subarray(0, 5000));
    else partial(from ?? 0, res);
  });
  const { bytes, lines } = await fetchInto("/short");
  assert.ok(bytes.equals(body));
  assert.ok(lines.some((l) => l.includes("closed the connection early")), lines.join("\n"));
});

test("a connection that keeps breaking gives up after six, saying where", async () => {
  serve("/flaky", (_n, from, res) => {
    const start = from ?? 0;
    res.writeHead(from === undefined ? 200 : 206, { "content-length": body.length - start, ...(from === undefined ? {} : { "content-range": `bytes ${start}-${body.length - 1}/${body.length}` }) });
    res.write(body.subarray(start, start + 100), () => res.destroy());
  });
  await assert.rejects(fetchInto("/flaky"), (error: unknown) => error instanceof ModelDownloadError && /broke off 6 times; the last time at 0\.0 MB/.test(error.message));
});

test("a resumption answered from another byte than asked is refused", async () => {
  serve("/wrong-range", (n, _from, res) => {
    if (n === 1) res.writeHead(200, { "content-length": body.length }).write(body.subarray(0, 1000), () => res.destroy());
    else partial(0, res);
  });
  await assert.rejects(fetchInto("/wrong-range"), (error: unknown) => error instanceof ModelDownloadError && /HTTP 206 \(bytes 0-.*\) to a request to resume at byte 1000/.test(error.message));
});
