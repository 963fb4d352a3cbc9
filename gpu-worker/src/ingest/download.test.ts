import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { access, mkdtemp, readFile, rm } from "node:fs/promises";
import { createServer as createTcpServer, type Server } from "node:net";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { JobFailure, type JobErrorCode } from "@caption/shared/errors/codes";
import { startTestHttpsServer, type TestHttpsServer } from "@caption/shared/testing/https-server";
import { makeSpeechVideo } from "../testing/speech-video.ts";
import { ensureTestCa } from "@caption/shared/testing/test-ca";
import { downloadVideo, type DownloadOptions } from "./download.ts";

let server: TestHttpsServer;
let ca: Buffer;
let dir = "";
let videoPath = "";

before(async () => {
  server = await startTestHttpsServer();
  ca = await readFile(server.caCertPath);
  dir = await mkdtemp(join(tmpdir(), "download-test-"));
  videoPath = (await makeSpeechVideo({ text: "Download me over HTTPS.", width: 320, height: 240 })).path;
  server.serveFile("/video.mp4", videoPath, "video/mp4");
});
after(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

let fileCounter = 0;
function destination(): string {
  return join(dir, `download-${++fileCounter}.mp4`);
}

function options(overrides: Partial<DownloadOptions> = {}): DownloadOptions {
  return { signal: new AbortController().signal, allowPrivateAddresses: true, ca, ...overrides };
}

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

function sha256(data: Buffer): string {
  return createHash("sha256").update(data).digest("hex");
}

/** Downloads expecting a JobFailure with `code`, and checks no file is left behind. */
async function expectFailure(url: string, code: JobErrorCode, overrides: Partial<DownloadOptions> = {}, message?: RegExp): Promise<void> {
  const dest = destination();
  await assert.rejects(downloadVideo(url, dest, options(overrides)), (error: unknown) => {
    assert.ok(error instanceof JobFailure, `expected JobFailure, got ${String(error)}`);
    assert.equal(error.code, code, error.message);
    if (message) assert.match(error.message, message);
    return true;
  });
  assert.equal(await exists(dest), false, "partial file removed");
}

test("downloads a video byte for byte", async () => {
  const dest = destination();
  const result = await downloadVideo(server.url("/video.mp4"), dest, options());
  const [original, downloaded] = await Promise.all([readFile(videoPath), readFile(dest)]);
  assert.deepEqual(result, { bytes: original.length, sha256: sha256(original), contentType: "video/mp4" });
  assert.equal(sha256(downloaded), sha256(original));
});

test("connects to the address it resolved for a hostname, keeping the hostname for TLS", async () => {
  const url = server.url("/video.mp4").replace("127.0.0.1", "localhost");
  const result = await downloadVideo(url, destination(), options());
  assert.ok(result.bytes > 0);
});

test("a redirect is refused and not followed", async () => {
  let followed = false;
  server.route("/moved", (_req, res) => res.writeHead(302, { location: server.url("/target") }).end());
  server.route("/target", (_req, res) => {
    followed = true;
    res.end("x");
  });
  await expectFailure(server.url("/moved"), "REDIRECT_NOT_ALLOWED", {}, /302/);
  assert.equal(followed, false);
});

test("404 and 500 are VIDEO_UNREACHABLE", async () => {
  await expectFailure(server.url("/missing.mp4"), "VIDEO_UNREACHABLE", {}, /HTTP 404/);
  server.route("/broken", (_req, res) => res.writeHead(500).end());
  await expectFailure(server.url("/broken"), "VIDEO_UNREACHABLE", {}, /HTTP 500/);
});

test("a declared Content-Length over the cap fails before the body is read", async () => {
  // The body never comes: only the header can have decided.
  server.route("/huge", (_req, res) => {
    res.writeHead(200, { "content-length": 5000 });
    res.flushHeaders();
  });
  await expectFailure(server.url("/huge"), "VIDEO_TOO_LARGE", { maxBytes: 1000 });
});

test("a chunked body growing past the cap is cut off", async () => {
  server.route("/endless", (_req, res) => {
    res.writeHead(200, { "content-type": "video/mp4" });
    const timer = setInterval(() => res.write(Buffer.alloc(1000)), 1);
    res.on("close", () => clearInterval(timer));
  });
  await expectFailure(server.url("/endless"), "VIDEO_TOO_LARGE", { maxBytes: 4096 });
});

test("a server that stalls mid-body hits the idle timeout", async () => {
  server.route("/stall", (_req, res) => {
    res.writeHead(200, { "content-length": 10_000 });
    res.write(Buffer.alloc(100));
  });
  await expectFailure(server.url("/stall"), "VIDEO_UNREACHABLE", { idleTimeoutMs: 200 }, /no data/);
});

/** A body that keeps the connection alive with `bytes` every `everyMs`, never finishing. */
function drip(path: string, bytes: number, everyMs: number): void {
  server.route(path, (_req, res) => {
    res.writeHead(200, { "content-type": "video/mp4", "content-length": 100_000_000 });
    const timer = setInterval(() => res.write(Buffer.alloc(bytes)), everyMs);
    res.on("close", () => clearInterval(timer));
  });
}

test("a body dripping below the minimum throughput for a whole window is cut off", async () => {
  drip("/drip", 10, 20);
  await expectFailure(server.url("/drip"), "VIDEO_UNREACHABLE", { minBytesPerSecond: 50_000, throughputWindowMs: 300 }, /bytes\/s over the last 0\.3 s, below the minimum of 50000 bytes\/s/);
});

test("the total timeout bounds a body that keeps up its rate", async () => {
  drip("/steady", 2000, 10);
  // A throughput window longer than the whole timeout: a loaded machine pausing the drip cannot trip the rate guard first.
  await expectFailure(server.url("/steady"), "VIDEO_UNREACHABLE", { minBytesPerSecond: 1000, throughputWindowMs: 10_000, totalTimeoutMs: 400 }, /took longer than 400 ms/);
});

test("a body shorter than its Content-Length is VIDEO_UNREACHABLE", async () => {
  server.route("/short", (req, res) => {
    res.writeHead(200, { "content-length": 10_000 });
    res.write(Buffer.alloc(500), () => req.socket.destroy());
  });
  await expectFailure(server.url("/short"), "VIDEO_UNREACHABLE");
});

test("loopback is refused unless private addresses are allowed", async () => {
  let hits = 0;
  server.route("/private", (_req, res) => {
    hits++;
    res.end("secret");
  });
  await expectFailure(server.url("/private"), "URL_NOT_ALLOWED", { allowPrivateAddresses: false }, /loopback/);
  await expectFailure(server.url("/private").replace("127.0.0.1", "localhost"), "URL_NOT_ALLOWED", { allowPrivateAddresses: false });
  await expectFailure(server.url("/private").replace("127.0.0.1", "[::1]"), "URL_NOT_ALLOWED", { allowPrivateAddresses: false });
  await expectFailure("https://[::ffff:127.0.0.1]/private", "URL_NOT_ALLOWED", { allowPrivateAddresses: false });
  await expectFailure("https://169.254.169.254/latest/meta-data/", "URL_NOT_ALLOWED", { allowPrivateAddresses: false }, /metadata/);
  assert.equal(hits, 0);
});

test("only HTTPS URLs are accepted", async () => {
  await expectFailure(server.url("/video.mp4").replace("https:", "http:"), "URL_NOT_ALLOWED", {}, /HTTPS/);
  await expectFailure("ftp://example.com/video.mp4", "URL_NOT_ALLOWED");
  await expectFailure("not a url", "URL_NOT_ALLOWED");
});

test("an untrusted certificate is VIDEO_UNREACHABLE", async () => {
  const otherCa = await ensureTestCa(join(dir, "other-ca"));
  await expectFailure(server.url("/video.mp4"), "VIDEO_UNREACHABLE", { ca: await readFile(otherCa.caCertPath) }, /TLS/);
});

test("an unknown host is VIDEO_UNREACHABLE", async () => {
  await expectFailure("https://no-such-host.invalid/video.mp4", "VIDEO_UNREACHABLE", { connectTimeoutMs: 5000 });
});

test("a refused connection is VIDEO_UNREACHABLE", async () => {
  const closed = createTcpServer();
  await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
  const { port } = closed.address() as AddressInfo;
  await new Promise((resolve) => closed.close(resolve));
  await expectFailure(`https://127.0.0.1:${port}/video.mp4`, "VIDEO_UNREACHABLE", {}, /refused/);
});

test("a server that never answers the TLS handshake hits the connect timeout", async () => {
  const silent: Server = createTcpServer(() => undefined);
  await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
  const { port } = silent.address() as AddressInfo;
  try {
    await expectFailure(`https://127.0.0.1:${port}/video.mp4`, "VIDEO_UNREACHABLE", { connectTimeoutMs: 200 }, /did not respond/);
  } finally {
    silent.close();
    silent.unref();
  }
});

test("a destination that cannot be written is not blamed on the video", async () => {
  const dest = join(dir, "no-such-dir", "video.mp4");
  await assert.rejects(downloadVideo(server.url("/video.mp4"), dest, options()), (error: unknown) => {
    assert.ok(!(error instanceof JobFailure));
    assert.equal((error as NodeJS.ErrnoException).code, "ENOENT");
    return true;
  });
});

test("abort mid-download rejects with the reason and removes the partial file", async () => {
  const controller = new AbortController();
  const reason = new Error("job cancelled");
  server.route("/slow", (_req, res) => {
    res.writeHead(200, { "content-length": 100_000 });
    res.write(Buffer.alloc(1000), () => setTimeout(() => controller.abort(reason), 50));
  });
  const dest = destination();
  await assert.rejects(downloadVideo(server.url("/slow"), dest, options({ signal: controller.signal })), (error: unknown) => error === reason);
  assert.equal(await exists(dest), false);
});
