import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { chromium, type BrowserContext } from "playwright-core";
import { startTestApi, type TestApi } from "../testing/test-api.ts";

// GET /docs in a real headless browser (Debian's chromium, installed by `npm run setup`): the page
// loads with no console errors and nothing from another origin, lists every path of the OpenAPI
// document, and "Try it out" gets a real answer from the running service.

let t: TestApi;
let key: string;
let browser: BrowserContext;
let profile: string;

before(async () => {
  t = await startTestApi();
  ({ api_key: key } = await t.createKey({ credits: 321 }));
  profile = await mkdtemp(path.join(tmpdir(), "caption-chromium-"));
  // A fresh profile (--user-data-dir) of our own for each run.
  browser = await chromium.launchPersistentContext(profile, {
    executablePath: "/usr/bin/chromium",
    headless: true,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
  });
});
after(async () => {
  await browser?.close();
  await t?.close();
  if (profile) await rm(profile, { recursive: true, force: true });
});

test("/docs lists every path and a try-it request gets a real answer", async () => {
  const page = await browser.newPage();
  const problems: string[] = [];
  const elsewhere: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error") problems.push(`console: ${message.text()}`);
  });
  page.on("pageerror", (error) => problems.push(`page: ${error.message}`));
  page.on("request", (request) => {
    if (!request.url().startsWith(`${t.url}/`) && !request.url().startsWith("data:")) elsewhere.push(request.url());
  });

  const response = await page.goto(`${t.url}/docs`);
  assert.equal(response?.status(), 200);
  assert.match(response?.headers()["content-security-policy"] ?? "", /default-src 'self'/);
  await page.waitForSelector(".opblock", { timeout: 60_000 });

  // Every path, and the webhooks the service sends (OpenAPI 3.1 `webhooks`), each with its operations.
  const document = (await t.request("GET", "/v1/openapi.json")).body as { paths: Record<string, Record<string, unknown>>; webhooks: Record<string, Record<string, unknown>> };
  const listed = new Set(await page.locator(".opblock-summary-path").evaluateAll((nodes) => nodes.map((n) => n.getAttribute("data-path"))));
  assert.deepEqual([...listed].sort(), [...Object.keys(document.paths), ...Object.keys(document.webhooks)].sort());
  assert.ok(Object.keys(document.paths).includes("/v1/webhook_endpoints") && Object.keys(document.paths).includes("/v1/jobs/{id}/events"));
  const operations = [...Object.values(document.paths), ...Object.values(document.webhooks)].reduce((n, item) => n + Object.keys(item).length, 0);
  assert.equal(await page.locator(".opblock").count(), operations);

  // Authorize with an API key, then try GET /v1/usage against the running service.
  await page.click(".btn.authorize");
  await page.fill(".auth-container input", key);
  await page.click(".auth-btn-wrapper .btn.authorize");
  await page.click(".auth-btn-wrapper .btn-done");
  const usage = page.locator("#operations-Usage-getUsage");
  await usage.locator(".opblock-summary").click();
  await usage.locator(".try-out__btn").click();
  await usage.locator(".btn.execute").click();
  const status = usage.locator(".live-responses-table .response .response-col_status");
  await status.first().waitFor({ timeout: 30_000 });
  assert.equal((await status.first().innerText()).trim(), "200");
  const body = JSON.parse(await usage.locator(".live-responses-table .response-col_description pre").first().innerText());
  assert.equal(body.available_seconds, 321);

  assert.deepEqual(problems, []);
  assert.deepEqual(elsewhere, []);
  await page.close();
});

test("the assets are ours, and unknown asset names are 404", async () => {
  const css = await fetch(`${t.url}/docs/assets/swagger-ui.css`);
  assert.equal(css.status, 200);
  assert.match(css.headers.get("content-type") ?? "", /text\/css/);
  assert.equal((await fetch(`${t.url}/docs/assets/package.json`)).status, 404);
  assert.equal((await fetch(`${t.url}/docs/assets/..%2Fpackage.json`)).status, 404);
  // Names every object has are no assets either.
  for (const name of ["constructor", "toString", "__proto__"]) assert.equal((await fetch(`${t.url}/docs/assets/${name}`)).status, 404, name);
});
