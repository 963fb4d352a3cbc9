// `npm run images:check`: builds the API and CPU worker images on a locally made Debian bookworm base and
// proves them: PostgreSQL, the migration, the API and the worker as containers on loopback ports, run as
// the chart's pods run them; a key, a spoken clip captioned end to end, non-root processes, health
// endpoints, a read-only root filesystem with the chart's volumes, the worker's drain on SIGTERM; each
// image's size. Builds are cached on this machine between runs; a new machine builds everything.
import assert from "node:assert/strict";
import path from "node:path";
import { execa } from "execa";
import { REPO_ROOT } from "../../fixtures/repo-paths.ts";
import { baseImage } from "./base-image.ts";
import { buildImages, type BuiltImage } from "./build-images.ts";
import { checkCaptioned, checkDrain, checkNonRoot, checkReadOnlyRoot, createKey, submitClip, waitForJob } from "./caption-through-containers.ts";
import { checkExposedNames } from "./exposed-names.ts";
import { startModelMirror } from "./model-mirror.ts";
import { preparePodman } from "./podman.ts";
import { startService, type Service } from "./service-containers.ts";
import { makeSpokenClip } from "./spoken-clip.ts";

const WORK_DIR = path.join(REPO_ROOT, ".tmp", "images-check");
const started = Date.now();
const elapsed = () => `${((Date.now() - started) / 1000).toFixed(1)} s`;
const log = (line: string) => console.log(`[images:check ${elapsed()}] ${line}`);
const passed: string[] = [];
async function step<T>(name: string, run: () => Promise<T>): Promise<T> {
  const at = Date.now();
  log(`▶ ${name}`);
  const result = await run();
  passed.push(name);
  log(`✔ ${name} (${((Date.now() - at) / 1000).toFixed(1)} s)`);
  return result;
}
const probeSeconds = async (file: string) => Number((await execa("ffprobe", ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", file])).stdout);

let service: Service | undefined;
let failed = false;
try {
  const podman = await step("podman, runc and mmdebstrap ready", () => preparePodman(WORK_DIR, log));
  const base = await step("Debian bookworm base with Node 24", () => baseImage(podman, WORK_DIR, log));
  const mirror = await startModelMirror();
  let built: BuiltImage[];
  try {
    built = await step("images built (API, CPU worker with its model from the mirror, PostgreSQL)", () => buildImages(podman, base, mirror, WORK_DIR, log));
  } finally {
    await mirror.close();
  }
  const [short, long] = await step("spoken clips made", () => Promise.all([makeSpokenClip({ width: 640, height: 360, repeat: 1 }), makeSpokenClip({ width: 960, height: 540, repeat: 2 })]));
  const running = await step("PostgreSQL, migration, API and worker running as the chart's pods", () => startService(podman, log));
  service = running;
  await step("processes run as a non-root user", async () => {
    for (const name of [running.names.api, running.names.worker]) for (const row of await checkNonRoot(podman, name)) log(`  ${name}: ${row}`);
  });
  await step("health: /healthz, /readyz and the compose health check", async () => {
    for (const probe of ["/healthz", "/readyz"]) assert.equal((await fetch(`${running.apiUrl}${probe}`)).status, 200, probe);
    const port = new URL(running.apiUrl).port;
    await podman(["exec", running.names.api, "node", "-e", `fetch('http://127.0.0.1:${port}/readyz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))`]);
  });
  await step("read-only root filesystem; only the chart's volumes take writes", async () => {
    for (const name of [running.names.api, running.names.worker]) await checkReadOnlyRoot(podman, name);
  });
  const api = await step("a key from the admin CLI in the API container", () => createKey(podman, running));
  await step("a spoken clip captioned end to end by the model built into the worker image", async () => {
    const job = await waitForJob(api, await submitClip(api, short));
    await checkCaptioned(job, short, await probeSeconds(short.path));
  });
  await step("the series the dashboard and alert rules use are on the containers' /metrics", () => checkExposedNames(running));
  await step("SIGTERM to the worker lets its running job finish", async () => {
    const id = await submitClip(api, long);
    const { secondsToExit } = await checkDrain(podman, running, api, id);
    log(`  the worker exited 0 ${secondsToExit.toFixed(1)} s after SIGTERM, its job completed (grace: ${running.pods.worker.terminationGraceSeconds} s)`);
    await checkCaptioned(await waitForJob(api, id), long, await probeSeconds(long.path));
  });
  await Promise.all([short.dispose(), long.dispose()]);
  log("image sizes:");
  for (const image of built) log(`  ${image.name.padEnd(45)} ${(image.sizeBytes / 1e6).toFixed(0).padStart(6)} MB  (built in ${image.seconds.toFixed(1)} s)`);
} catch (error) {
  failed = true;
  console.error(error instanceof Error ? (error.stack ?? error.message) : error);
  if (service) for (const name of [service.names.api, service.names.worker]) console.error(`--- ${name} log (last 40 lines) ---\n${(await service.logs(name)).split("\n").slice(-40).join("\n")}`);
} finally {
  await service?.remove();
}
console.log(`images:check: ${passed.length} passed, ${failed ? 1 : 0} failed (${elapsed()})`);
process.exitCode = failed ? 1 : 0;
