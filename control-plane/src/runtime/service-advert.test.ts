import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { chown, lstat, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { createServer, type IncomingHttpHeaders } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { newToken } from "../services/service-identity.ts";
import { startTestApi, type TestApi } from "../testing/test-api.ts";
import { advertiseService, findAdvertisedService } from "./service-advert.ts";

// DATA_DIR/service.json: whoever may write DATA_DIR could plant one (or a link) pointing the caption command at
// a server of theirs, which would then be sent the local key. Only the service's own file is used.

const nonce = newToken();
let t: TestApi;
let dir: string;
before(async () => {
  t = await startTestApi({}, { identityNonce: nonce });
});
after(() => t.close());

const fresh = async () => (dir = await mkdtemp(path.join(tmpdir(), "caption-advert-")));
const advertFile = () => path.join(dir, "service.json");
const plant = (advert: object, mode = 0o600) => writeFile(advertFile(), JSON.stringify(advert), { mode });
const ROOT = process.getuid?.() === 0;

test("npm start's advert is created for this user alone, never through a link planted at its name; a clean stop removes it", async () => {
  await fresh();
  const target = path.join(dir, "elsewhere.txt");
  await writeFile(target, "not the advert's to write");
  await symlink(target, advertFile());
  const unadvertise = await advertiseService(dir, t.url, nonce);
  assert.equal(await readFile(target, "utf8"), "not the advert's to write");
  const stats = await lstat(advertFile());
  assert.ok(stats.isFile(), "a file of its own replaced the link");
  assert.equal(stats.mode & 0o777, 0o600);
  assert.deepEqual(JSON.parse(await readFile(advertFile(), "utf8")), { url: t.url, pid: process.pid, nonce });
  assert.deepEqual(await findAdvertisedService(dir), { advert: { url: t.url, pid: process.pid, nonce } });
  await unadvertise();
  await assert.rejects(lstat(advertFile()), { code: "ENOENT" });
  await rm(dir, { recursive: true });
});

test("an advert is ignored unless it is this user's alone, on loopback, of a live process of this user's, confirmed by the service", async () => {
  await fresh();
  const good = { url: t.url, pid: process.pid, nonce };
  const ignored = async (why: RegExp) => {
    const found = await findAdvertisedService(dir);
    assert.equal(found.advert, undefined);
    assert.match(found.ignored ?? "", why);
  };
  await plant(good, 0o644);
  await ignored(/has mode 0644; only its owner may read or write it/);
  await rm(advertFile());
  const elsewhere = path.join(dir, "good.json");
  await writeFile(elsewhere, JSON.stringify(good), { mode: 0o600 });
  await symlink(elsewhere, advertFile());
  await ignored(/is a symbolic link/);
  await rm(advertFile());

  for (const url of ["http://10.1.2.3:8080", "http://localhost:8080", "https://127.0.0.1:8080", `${t.url}/v1`, "http://user:pw@127.0.0.1:8080"]) {
    await plant({ ...good, url });
    await ignored(/not an http:\/\/ address on loopback/);
    await rm(advertFile());
  }
  const exited = spawnSync(process.execPath, ["-e", ""]);
  await plant({ ...good, pid: exited.pid });
  await ignored(new RegExp(`process ${exited.pid}, which is not running as this user`));
  await rm(advertFile());

  await plant({ ...good, nonce: newToken() });
  await ignored(/does not confirm that it wrote/);
  await rm(advertFile());
  await rm(dir, { recursive: true });
});

test("a server on loopback that answers /readyz but cannot prove the nonce is asked nothing else, and never sent a key", async () => {
  await fresh();
  const seen: { url: string | undefined; headers: IncomingHttpHeaders }[] = [];
  const impostor = createServer((req, res) => {
    seen.push({ url: req.url, headers: req.headers });
    res.writeHead(200, { "content-type": "application/json" }).end('{"status":"ready"}');
  });
  await new Promise<void>((resolve) => impostor.listen(0, "127.0.0.1", resolve));
  try {
    const { port } = impostor.address() as { port: number };
    await plant({ url: `http://127.0.0.1:${port}`, pid: process.pid, nonce });
    const found = await findAdvertisedService(dir);
    assert.equal(found.advert, undefined);
    assert.match(found.ignored ?? "", /does not confirm/);
    assert.deepEqual(seen.map((request) => request.url), ["/readyz"]);
    assert.equal(seen[0]?.headers.authorization, undefined);
  } finally {
    impostor.close();
    await rm(dir, { recursive: true });
  }
});

test("a file owned by another user is ignored", { skip: !ROOT && "only root can give a file away" }, async () => {
  await fresh();
  await plant({ url: t.url, pid: process.pid, nonce });
  await chown(advertFile(), 65534, 65534);
  const found = await findAdvertisedService(dir);
  assert.match(found.ignored ?? "", /belongs to uid 65534, not to this user/);
  await rm(dir, { recursive: true });
});

// A live process of another user's (EPERM to a signal) took the pid: not the service's. As root every process can
// be signalled, so the check then runs as `nobody`, against pid 1.
test("a live process this user may not signal (EPERM) is not the service's", async () => {
  await fresh();
  await plant({ url: t.url, pid: 1, nonce });
  // The child loads the module as root and only then becomes `nobody`: a checkout in a private directory (a
  // mktemp -d under /root) is out of that user's reach.
  const script = `const { findAdvertisedService } = await import(${JSON.stringify(path.join(import.meta.dirname, "service-advert.ts"))});
    if (${ROOT}) { process.setgid(65534); process.setuid(65534); }
    process.stdout.write(JSON.stringify(await findAdvertisedService(${JSON.stringify(dir)})));`;
  let found: { advert?: unknown; ignored?: string };
  if (ROOT) {
    await chown(dir, 65534, 65534);
    await chown(advertFile(), 65534, 65534);
    const child = spawn(process.execPath, ["--input-type=module", "-e", script], { cwd: "/" });
    let out = "";
    let err = "";
    child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (err += chunk.toString()));
    const code = await new Promise((resolve) => child.on("close", resolve));
    assert.equal(code, 0, err);
    found = JSON.parse(out) as typeof found;
  } else {
    found = await findAdvertisedService(dir);
  }
  assert.equal(found.advert, undefined);
  assert.match(found.ignored ?? "", /names process 1, which is not running as this user/);
  await rm(dir, { recursive: true });
});
