import assert from "node:assert/strict";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { get as httpGet } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { gunzipSync } from "node:zlib";
import { after, before, test } from "node:test";
import { assertErrorShape } from "../testing/error-shape.ts";
import { startTestApi, type TestApi } from "../testing/test-api.ts";
import { studioPolicy } from "./routes/studio-routes.ts";

// How the API serves the studio's built files (a stand-in build here; the browser tests load the real one): the page
// never cached and under a strict Content-Security-Policy, hashed assets cached for good (gzip when asked), nothing
// else from the folder, and GET / sending a browser there while JSON clients see the API's 404 as before.

let t: TestApi;
let dir: string;
const SCRIPT = `console.log(${JSON.stringify("studio ".repeat(200))});\n`;

before(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "studio-dist-"));
  await mkdir(path.join(dir, "assets"));
  await writeFile(path.join(dir, "index.html"), `<!doctype html><script type="module" src="./assets/index-Ab12_x.js"></script>`);
  await writeFile(path.join(dir, "assets", "index-Ab12_x.js"), SCRIPT);
  await writeFile(path.join(dir, "assets", "inter-latin-400-normal-C38f.woff2"), Buffer.from([0x77, 0x4f, 0x46, 0x32]));
  await writeFile(path.join(dir, "secret.txt"), "not an asset");
  t = await startTestApi({ STUDIO_DIR: dir });
});
after(async () => {
  await t?.close();
  await rm(dir, { recursive: true, force: true });
});

const get = (pathname: string, headers: Record<string, string> = {}) => fetch(`${t.url}${pathname}`, { headers, redirect: "manual" });

test("the page: never cached, its scripts its own, connecting only to this API", async () => {
  const response = await get("/studio/");
  assert.equal(response.status, 200);
  assert.equal(response.headers.get("content-type"), "text/html; charset=utf-8");
  assert.equal(response.headers.get("cache-control"), "no-store");
  const policy = response.headers.get("content-security-policy") ?? "";
  for (const directive of ["default-src 'none'", "script-src 'self'", "style-src 'self'", "connect-src 'self'", "frame-ancestors 'none'", "base-uri 'none'"]) {
    assert.ok(policy.split("; ").includes(directive), `${directive} in ${policy}`);
  }
  assert.doesNotMatch(policy, /unsafe-inline|unsafe-eval|\*/);
  assert.match(await response.text(), /index-Ab12_x\.js/);
});

test("/studio without its slash goes to /studio/, whose relative asset URLs need it", async () => {
  const response = await get("/studio");
  assert.equal(response.status, 302);
  assert.equal(response.headers.get("location"), "studio/");
});

test("hashed assets are cached for good, scripts gzipped for a client that takes gzip", async () => {
  const plain = await get("/studio/assets/index-Ab12_x.js", { "accept-encoding": "identity" });
  assert.equal(plain.headers.get("cache-control"), "public, max-age=31536000, immutable");
  assert.equal(plain.headers.get("content-type"), "text/javascript; charset=utf-8");
  assert.equal(await plain.text(), SCRIPT);
  // fetch inflates what it gets: node:http shows the bytes as sent.
  const raw = await new Promise<{ encoding: string | undefined; vary: string | undefined; body: Buffer }>((resolve, reject) => {
    httpGet(`${t.url}/studio/assets/index-Ab12_x.js`, { headers: { "accept-encoding": "gzip" } }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => resolve({ encoding: res.headers["content-encoding"], vary: res.headers.vary, body: Buffer.concat(chunks) }));
    }).on("error", reject);
  });
  assert.match(raw.vary ?? "", /accept-encoding/i);
  assert.equal(raw.encoding, "gzip");
  assert.equal(gunzipSync(raw.body).toString(), SCRIPT);
  const font = await get("/studio/assets/inter-latin-400-normal-C38f.woff2");
  assert.equal(font.headers.get("content-type"), "font/woff2");
});

test("nothing else of the folder is served: unknown names, other types and paths out of assets/ are 404", async () => {
  for (const pathname of ["/studio/assets/missing-1234.js", "/studio/assets/..%2Fsecret.txt", "/studio/assets/..%2Findex.html", "/studio/secret.txt", "/studio/assets/constructor", "/studio/assets/x.html"]) {
    const response = await get(pathname);
    assert.equal(response.status, 404, pathname);
    assertErrorShape(await response.json(), "NOT_FOUND");
  }
});

test("GET / sends a browser to the studio; a JSON client (curl's */* too) gets the API's 404 as before", async () => {
  const browser = await get("/", { accept: "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8" });
  assert.equal(browser.status, 302);
  assert.equal(browser.headers.get("location"), "studio/");
  assert.match(browser.headers.get("vary") ?? "", /accept/i);
  for (const accept of ["*/*", "application/json", ""]) {
    const response = await get("/", accept ? { accept } : {});
    assert.equal(response.status, 404, accept);
    const body = (await response.json()) as { error: { message: string } };
    assertErrorShape(body, "NOT_FOUND");
    assert.match(body.error.message, /route not found/);
  }
});

test("without a build the page says how to make one", async () => {
  const unbuilt = await startTestApi({ STUDIO_DIR: path.join(dir, "nowhere") }, { database: t.database });
  try {
    const response = await fetch(`${unbuilt.url}/studio/`);
    assert.equal(response.status, 404);
    const body = (await response.json()) as { error: { message: string } };
    assertErrorShape(body, "NOT_FOUND");
    assert.match(body.error.message, /npm run setup/);
  } finally {
    await unbuilt.close();
  }
});

test("with results in an object store, the page may load them from its origin too, and from nowhere else", () => {
  const policy = studioPolicy("https://bucket.s3.example.com");
  for (const directive of ["img-src 'self' blob: https://bucket.s3.example.com", "media-src 'self' blob: https://bucket.s3.example.com", "connect-src 'self' https://bucket.s3.example.com"]) {
    assert.ok(policy.split("; ").includes(directive), directive);
  }
  assert.equal(studioPolicy(undefined).includes("s3"), false);
});
