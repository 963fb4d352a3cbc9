import { mkdir, readFile } from "node:fs/promises";
import path from "node:path";
import type { Locator, Page } from "playwright-core";
import { REPO_ROOT } from "../fixtures/repo-paths.ts";

// What the studio's browser tests share beside the build and the browser (control-plane/testing): problems a page
// shows, axe-core in the page, keyboard reach, and the screenshots docs/studio.md shows.

export { builtStudio, launchStudioBrowser, type StudioBrowser } from "@caption/control-plane/testing";

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
