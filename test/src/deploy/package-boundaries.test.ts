import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { builtinModules } from "node:module";
import path from "node:path";
import { describe, test } from "node:test";
import { ESLint } from "eslint";
import { REPO_ROOT } from "../fixtures/repo-paths.ts";
// @ts-expect-error: plain JavaScript config module without types
import { boundaries } from "../../../eslint.boundaries.js";

const PACKAGES = ["shared", "control-plane", "gpu-worker", "bench", "test"] as const;

describe("the lint rule on package boundaries and layers", () => {
  const eslint = new ESLint({ cwd: REPO_ROOT, overrideConfigFile: true, overrideConfig: boundaries });
  const verdict = async (file: string, specifier: string) => {
    const [result] = await eslint.lintText(`import { x } from "${specifier}";\nexport { x };\n`, { filePath: path.join(REPO_ROOT, file) });
    const messages = result?.messages ?? [];
    assert.ok(messages.every((m) => m.ruleId === "no-restricted-imports"), JSON.stringify(messages));
    return messages.length === 0 ? "allowed" : "refused";
  };
  const dynamicVerdict = async (file: string, specifier: string) => {
    const [result] = await eslint.lintText(`export const loaded = await import("${specifier}");\n`, { filePath: path.join(REPO_ROOT, file) });
    const messages = result?.messages ?? [];
    assert.ok(messages.every((m) => m.ruleId === "no-restricted-syntax"), JSON.stringify(messages));
    return messages.length === 0 ? "allowed" : "refused";
  };
  test("dynamic imports follow the same rule between packages", async () => {
    assert.equal(await dynamicVerdict("test/src/e2e/x.test.ts", "../../../gpu-worker/src/testing/https-server.ts"), "refused");
    assert.equal(await dynamicVerdict("test/src/e2e/x.test.ts", "@caption/gpu-worker/src/testing/speech-video.ts"), "refused");
    assert.equal(await dynamicVerdict("test/src/e2e/x.test.ts", "@caption/gpu-worker/testing"), "allowed");
    assert.equal(await dynamicVerdict("test/src/e2e/x.test.ts", "../support/test-service.ts"), "allowed");
  });
  const cases: [file: string, specifier: string, expected: "allowed" | "refused"][] = [
    // between packages
    ["control-plane/src/services/x.ts", "@caption/gpu-worker", "refused"],
    ["gpu-worker/src/pipeline/x.ts", "@caption/control-plane", "refused"],
    ["shared/src/db/x.ts", "@caption/control-plane", "refused"],
    ["bench/src/pipeline/x.ts", "@caption/test/fixtures/repo-paths", "refused"],
    ["test/src/e2e/x.test.ts", "../../../gpu-worker/src/media/ffprobe.ts", "refused"],
    ["bench/src/api/x.ts", "../../../control-plane/src/runtime/api-server.ts", "refused"],
    ["test/src/e2e/x.test.ts", "@caption/gpu-worker/src/media/ffprobe.ts", "refused"],
    ["test/src/e2e/x.test.ts", "@caption/gpu-worker/media", "allowed"],
    ["bench/src/api/x.ts", "@caption/control-plane", "allowed"],
    ["gpu-worker/src/render/x.ts", "@caption/shared/style/resolved-style", "allowed"],
    // up shared's layers: presets under style, clocks under the database
    ["shared/src/presets/x.ts", "../style/resolve-style.ts", "refused"],
    ["shared/src/db/x.ts", "../runtime/startup-failure.ts", "refused"],
    ["shared/src/api/x.ts", "../config/env.ts", "refused"],
    ["shared/src/style/x.ts", "../presets/catalog.ts", "allowed"],
    ["shared/src/db/x.ts", "../time/clock.ts", "allowed"],
    ["shared/src/db/migrations/x.ts", "../../jobs/catalog.ts", "refused"],
    // up the control plane's layers
    ["control-plane/src/services/x.ts", "../http/api-error.ts", "refused"],
    ["control-plane/src/db/x.ts", "../services/job-service.ts", "refused"],
    ["control-plane/src/db/embedded/x.ts", "../../http/app.ts", "refused"],
    ["control-plane/src/http/x.ts", "../runtime/api-server.ts", "refused"],
    ["control-plane/src/http/routes/x.ts", "../../services/job-service.ts", "allowed"],
    ["control-plane/src/services/x.ts", "../db/job-repository.ts", "allowed"],
    ["control-plane/src/services/x.ts", "koa", "refused"],
    ["control-plane/src/http/x.ts", "koa", "allowed"],
    // up the worker's layers, sideways between its adapters, and into test support
    ["gpu-worker/src/pipeline/x.ts", "../runtime/caption-worker.ts", "refused"],
    ["gpu-worker/src/media/x.ts", "../asr/speech-engine.ts", "refused"],
    ["gpu-worker/src/render/x.ts", "../asr/speech-engine.ts", "refused"],
    ["gpu-worker/src/asr/sherpa/x.ts", "../../render/cue-builder.ts", "refused"],
    ["gpu-worker/src/render/x.ts", "../testing/gray-frame.ts", "refused"],
    ["gpu-worker/src/render/x.ts", "@caption/shared/testing/test-database", "refused"],
    ["gpu-worker/src/runtime/x.ts", "../pipeline/process-caption-job.ts", "allowed"],
    ["gpu-worker/src/subtitles/ass/x.ts", "../../render/cue-builder.ts", "allowed"],
    ["gpu-worker/src/render/animations/x.ts", "../../media/ffmpeg.ts", "allowed"],
    ["gpu-worker/src/render/x.test.ts", "../testing/gray-frame.ts", "allowed"],
  ];
  for (const [file, specifier, expected] of cases) {
    test(`${file}: import "${specifier}" is ${expected}`, async () => {
      assert.equal(await verdict(file, specifier), expected);
    });
  }
});

/** Every `.ts` file of a package's src/. */
const sourcesOf = (pkg: string): string[] =>
  readdirSync(path.join(REPO_ROOT, pkg, "src"), { recursive: true, encoding: "utf8" })
    .filter((file) => file.endsWith(".ts"))
    .map((file) => path.join(pkg, "src", file));

/** The package a bare specifier names (`@scope/name` or `name`), or null for relative paths and builtins. */
function packageOf(specifier: string): string | null {
  if (specifier.startsWith(".") || specifier.startsWith("node:") || builtinModules.includes(specifier.split("/")[0] ?? "")) return null;
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : (parts[0] ?? null);
}

describe("each package declares what it imports", () => {
  for (const pkg of PACKAGES) {
    test(`${pkg}: every package its sources import is in its package.json`, () => {
      const manifest = JSON.parse(readFileSync(path.join(REPO_ROOT, pkg, "package.json"), "utf8"));
      const runtime = new Set(Object.keys({ ...manifest.dependencies, ...manifest.optionalDependencies }));
      const all = new Set([...runtime, ...Object.keys(manifest.devDependencies ?? {})]);
      const undeclared: string[] = [];
      for (const file of sourcesOf(pkg)) {
        const testCode = file.endsWith(".test.ts") || file.includes("/testing/") || pkg === "test";
        const source = readFileSync(path.join(REPO_ROOT, file), "utf8");
        for (const [, specifier = ""] of source.matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*|^import\s+)"([^"]+)"/gm)) {
          const name = packageOf(specifier);
          if (name !== null && !name.includes("$") && !(testCode ? all : runtime).has(name)) undeclared.push(`${file}: ${name}`);
        }
      }
      assert.deepEqual(undeclared, []);
    });
  }
});
