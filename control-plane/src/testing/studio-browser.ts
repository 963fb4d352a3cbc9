import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, rename, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import type { BrowserContext } from "playwright-core";

// The studio's browser tests and its benchmark: the studio built from its current sources (cached by their hash, so
// they never run an old build and two test files never build it twice), and Debian's Chromium to open it in.

const REPO_ROOT = path.resolve(import.meta.dirname, "../../..");
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

/** Debian's Chromium (installed by `npm run setup`; no browser download), headless, talking to nothing on its own. */
export const CHROMIUM = {
  executablePath: "/usr/bin/chromium",
  headless: true,
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
};

export interface StudioBrowser {
  context: BrowserContext;
  close(): Promise<void>;
}

/** Debian's Chromium, headless, with a fresh profile of its own. */
export async function launchStudioBrowser(): Promise<StudioBrowser> {
  // Loaded here, not with the module: every importer of the testing barrel would pay for playwright otherwise.
  const { chromium } = await import("playwright-core");
  const profile = await mkdtemp(path.join(tmpdir(), "studio-chromium-"));
  const context = await chromium.launchPersistentContext(profile, { ...CHROMIUM, viewport: { width: 1280, height: 900 } });
  return {
    context,
    async close() {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

