import { readFile } from "node:fs/promises";
import path from "node:path";
import { gzipSync } from "node:zlib";
import type { Browser, Page } from "playwright-core";

// What `npm run bench:studio` measures in a real browser: the first load's bytes, the time to a page that takes
// input, and a preview's redraw after a style change, as the page itself times them (performance marks).

/** The JavaScript and CSS the page loads first (what index.html names), gzipped as the API serves them. */
export async function firstLoadBytes(dir: string): Promise<{ files: { name: string; gzipBytes: number }[]; totalGzipBytes: number }> {
  const page = await readFile(path.join(dir, "index.html"), "utf8");
  const names = [...page.matchAll(/(?:src|href)="\.\/(assets\/[^"]+\.(?:js|css))"/gu)].map((match) => match[1]!);
  const files = await Promise.all(names.map(async (name) => ({ name, gzipBytes: gzipSync(await readFile(path.join(dir, name)), { level: 9 }).length })));
  return { files, totalGzipBytes: files.reduce((sum, file) => sum + file.gzipBytes, 0) };
}

/** Milliseconds from the navigation's start to the page's `studio-interactive` mark. */
async function interactiveMs(page: Page): Promise<number> {
  type Entries = { performance: { getEntriesByName(name: string): { startTime: number }[] } };
  const handle = await page.waitForFunction(() => (globalThis as unknown as Entries).performance.getEntriesByName("studio-interactive")[0]?.startTime ?? false);
  return (await handle.jsonValue()) as number;
}

/** The time to the sign-in form, each in a fresh browser context (nothing cached), then signed in (a reload, assets cached). */
export async function interactiveTimes(browser: Browser, url: string, key: string, runs: number): Promise<{ cold: number[]; signedIn: number[] }> {
  const cold: number[] = [];
  const signedIn: number[] = [];
  for (let run = 0; run < runs; run++) {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${url}/studio/`);
    cold.push(await interactiveMs(page));
    await page.getByLabel("API key").fill(key);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByLabel("Video file").waitFor();
    await page.reload();
    signedIn.push(await interactiveMs(page));
    await context.close();
  }
  return { cold, signedIn };
}

/**
 * Preview redraws after style changes on the person's own upload: the page times each from its request to the
 * picture on screen (`preview-redraw` measures). The text colour alternates, so every change is a new picture.
 */
export async function previewRedraws(browser: Browser, url: string, key: string, clip: string, changes: number): Promise<number[]> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  await page.goto(`${url}/studio/`);
  await page.getByLabel("API key").fill(key);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByLabel("Video file").setInputFiles(clip);
  await page.getByRole("radiogroup", { name: "Preset" }).locator("img").nth(15).waitFor({ timeout: 120_000 }).catch(async (error: unknown) => {
    throw new Error(`the gallery was not drawn: ${(await page.getByRole("alert").allTextContents()).join("; ") || String(error)}`);
  });
  type Entries = { performance: { getEntriesByName(name: string): { duration: number }[] } };
  const measures = () => page.evaluate(() => (globalThis as unknown as Entries).performance.getEntriesByName("preview-redraw").map((entry) => entry.duration));
  await page.waitForFunction(() => (globalThis as unknown as Entries).performance.getEntriesByName("preview-redraw").length > 0);
  const colour = page.getByLabel("Text color");
  for (let change = 0; change < changes; change++) {
    const before = (await measures()).length;
    await colour.fill(change % 2 === 0 ? "#FF3030" : "#30FF30");
    await colour.press("Enter");
    await page.waitForFunction((count) => (globalThis as unknown as Entries).performance.getEntriesByName("preview-redraw").length > count, before, { timeout: 30_000 });
  }
  const all = await measures();
  await context.close();
  return all.slice(-changes);
}

/** A person arriving at the studio every `periodMs` until `stop` aborts: the page loaded anew (assets cached), signed in. */
export async function keepStudioBusy(browser: Browser, url: string, key: string, periodMs: number, stop: AbortSignal): Promise<number> {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`${url}/studio/`);
  await page.getByLabel("API key").fill(key);
  await page.getByRole("button", { name: "Sign in" }).click();
  let loads = 0;
  while (!stop.aborted) {
    const started = Date.now();
    await page.reload();
    await interactiveMs(page);
    loads++;
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, periodMs - (Date.now() - started))));
  }
  await context.close();
  return loads;
}

/** The value at fraction `q` of the sorted values (nearest rank). */
export function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? NaN;
}
