import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, rename, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { chromium, type BrowserContext, type Locator, type Page } from "playwright-core";
import { REPO_ROOT } from "../fixtures/repo-paths.ts";

// What the studio's browser tests share: the studio built from its current sources (cached by their hash, so the
// tests never run an old build and two files never build it twice), Debian's Chromium, and axe-core in the page.

const execFileAsync = promisify(execFile);
const BUILDS = path.join(REPO_ROOT, ".tmp", "studio-builds");
const INPUTS = ["studio/index.html", "studio/vite.config.ts", "studio/tsconfig.json", "studio/package.json", "package-lock.json"];

async function sourceHash(): Promise<string> {
  const hash = createHash("sha256");
  const sources = (await readdir(path.join(REPO_ROOT, "studio/src"), { recursive: true, encoding: "utf8" })).sort().map((file) => `studio/src/${file}`);
  for (const file of [...INPUTS, ...sources]) {
    if (!/\.\w+$/u.test(file)) continue;
    hash.update(file).update(await readFile(path.join(REPO_ROOT, file)));
  }
  return hash.digest("hex").slice(0, 16);
}

/** The studio built from the sources as they are now: its folder, to serve as STUDIO_DIR. */
export async function builtStudio(): Promise<string> {
  const dir = path.join(BUILDS, await sourceHash());
  if (existsSync(path.join(dir, "index.html"))) return dir;
  await mkdir(BUILDS, { recursive: true });
  const building = await mkdtemp(path.join(BUILDS, "building-"));
  try {
    await execFileAsync(process.execPath, ["node_modules/vite/bin/vite.js", "build", "studio", "--outDir", building, "--emptyOutDir", "--logLevel", "warn"], { cwd: REPO_ROOT });
    // Another test file may have built the same sources meanwhile: the first rename wins, both builds are alike.
    await rename(building, dir).catch(() => undefined);
  } finally {
    await rm(building, { recursive: true, force: true });
  }
  return dir;
}

export interface StudioBrowser {
  context: BrowserContext;
  close(): Promise<void>;
}

/** Debian's Chromium, headless, with a fresh profile of its own. */
export async function launchStudioBrowser(): Promise<StudioBrowser> {
  const profile = await mkdtemp(path.join(tmpdir(), "studio-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: "/usr/bin/chromium",
    headless: true,
    viewport: { width: 1280, height: 900 },
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
  });
  return {
    context,
    async close() {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

/** What a page did that it should not: console errors (a refused script or connection included) and uncaught errors. */
export function watchProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error" && !/Failed to load resource: the server responded with a status of (4\d\d|503)/u.test(message.text())) problems.push(`console: ${message.text()}`);
  });
  page.on("pageerror", (error) => problems.push(`page: ${error.message}`));
  page.on("dialog", (dialog) => {
    problems.push(`dialog: ${dialog.message()}`);
    void dialog.dismiss();
  });
  return problems;
}

let axeSource: Promise<string> | undefined;

/** axe-core's serious and critical violations on the page as it is now (rule, impact and the nodes' selectors). */
export async function accessibilityViolations(page: Page): Promise<string[]> {
  axeSource ??= readFile(path.join(REPO_ROOT, "node_modules/axe-core/axe.min.js"), "utf8");
  // Evaluated through the DevTools protocol: the page's CSP (no inline scripts) does not apply to it.
  if (!(await page.evaluate("'axe' in window"))) await page.evaluate(await axeSource);
  const violations = await page.evaluate(async () => {
    type Axe = { run(options: object): Promise<{ violations: { id: string; impact: string; nodes: { target: string[] }[] }[] }> };
    const { axe } = globalThis as unknown as { axe: Axe };
    const result = await axe.run({ resultTypes: ["violations"] });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, targets: v.nodes.map((n) => n.target.join(" ")) }));
  });
  return violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => `${v.impact} ${v.id}: ${v.targets.join(", ")}`);
}

/** Writes a screenshot docs/studio.md shows: the window, scrolled to `top` (a heading) when given. */
export async function docsScreenshot(page: Page, name: string, top?: Locator): Promise<void> {
  await mkdir(path.join(REPO_ROOT, "docs", "studio"), { recursive: true });
  if (top) await top.evaluate((element) => element.scrollIntoView({ block: "start" }));
  else await page.evaluate("window.scrollTo(0, 0)");
  await page.screenshot({ path: path.join(REPO_ROOT, "docs", "studio", `${name}.png`), fullPage: false });
}

/** Whether the element has the keyboard's focus. */
export const isFocused = (target: Locator): Promise<boolean> =>
  target.evaluate((element) => element === (globalThis as unknown as { document: { activeElement: unknown } }).document.activeElement);

/** Presses Tab until `target` has the focus (at most `presses` times): it can be reached by keyboard alone. */
export async function tabTo(page: Page, target: Locator, presses = 120): Promise<void> {
  for (let i = 0; i < presses; i++) {
    await page.keyboard.press("Tab");
    if (await isFocused(target).catch(() => false)) return;
  }
  throw new Error(`${target.toString()} not reached by ${presses} presses of Tab`);
}
