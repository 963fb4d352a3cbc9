// `npm run bench:upload [-- options]`: a 400 MiB upload over loopback to local storage, through the API's
// upload URL (one PUT, and tus PATCHes in chunks), against a bare node:http PUT to disk and a plain file copy
// measured in the same run. Prints MiB/s, the ratios and the API process's RSS growth; PASS/FAIL against the
// targets (≥ 150 MiB/s, ≤ 64 MiB RSS growth). A benchmark, not a test: exits 0 either way (1 only if it could not run).
import { randomBytes } from "node:crypto";
import { copyFile, open, rm } from "node:fs/promises";
import path from "node:path";
import { spawnService, startEmbeddedService, type EmbeddedService, type ServiceProcess } from "@caption/control-plane/testing";
import { parseCommandLine } from "@caption/shared/runtime/command-line";
import { median } from "../api/scenario-summary.ts";
import { createBenchKey } from "../bench-key.ts";
import { treeCpuMs } from "../pipeline/tree-cpu.ts";
import { sampleRss, rssOf } from "../rss-sampler.ts";
import { sendFile } from "../upload/send-file.ts";
import { makeWorkDir } from "../work-dir.ts";

const USAGE = `usage: upload-bench [options]
  --mib N (400)        the file's size in MiB
  --chunk-mib N (100)  tus PATCH size in MiB
  --repeats N (3)      runs of each; the report gives the median
  --profile DIR        write a CPU profile of the API process into DIR (summarise: bench/src/cli/profile-summary.ts)`;
const MiB = 1024 * 1024;
const TARGET_MIB_S = 150;
const TARGET_RSS_MIB = 64;

async function writeRandomFile(file: string, bytes: number): Promise<void> {
  const handle = await open(file, "w");
  const block = randomBytes(4 * MiB);
  for (let written = 0; written < bytes; written += block.length) await handle.write(block, 0, Math.min(block.length, bytes - written));
  await handle.close();
}

async function main(argv: string[]): Promise<number> {
  const values = parseCommandLine({ args: argv, options: { mib: { type: "string", default: "400" }, "chunk-mib": { type: "string", default: "100" }, repeats: { type: "string", default: "3" }, profile: { type: "string" }, help: { type: "boolean", short: "h", default: false } }, strict: true }, USAGE);
  if (typeof values === "number") return values;
  const bytes = Number(values.mib) * MiB;
  const chunk = Number(values["chunk-mib"]) * MiB;
  const repeats = Number(values.repeats);
  const dir = await makeWorkDir();
  let service: EmbeddedService | undefined;
  let baseline: ServiceProcess | undefined;
  let serviceDir: string | undefined;
  try {
    const file = path.join(dir, "upload.bin");
    await writeRandomFile(file, bytes);
    const rate = (ms: number) => bytes / MiB / (ms / 1000);

    const copyMs: number[] = [];
    for (let i = 0; i < repeats; i += 1) {
      const started = performance.now();
      await copyFile(file, path.join(dir, "copy.bin"));
      copyMs.push(performance.now() - started);
      await rm(path.join(dir, "copy.bin"));
    }

    baseline = spawnService("bench/src/upload/baseline-server.ts", { DATA_DIR: dir }, { logFile: path.join(dir, "baseline.log"), stdin: "pipe" });
    const { url: baselineUrl } = await baseline.waitForLine((entry) => entry.msg === "baseline ready", 30_000);
    const bareMs: number[] = [];
    const bareCpuBefore = (await treeCpuMs(baseline.child.pid ?? 0)).rootMs;
    for (let i = 0; i < repeats; i += 1) {
      const sent = await sendFile(String(baselineUrl), "PUT", file, { start: 0, length: bytes });
      if (sent.status !== 204) throw new Error(`baseline answered ${sent.status}`);
      bareMs.push(sent.ms);
      await rm(path.join(dir, `baseline-${i + 1}`));
    }
    const bareCpu = ((await treeCpuMs(baseline.child.pid ?? 0)).rootMs - bareCpuBefore) / repeats;

    service = await startEmbeddedService({ entry: "bench/src/api/api-process.ts", dataDir: (serviceDir = await makeWorkDir()), env: { LOG_LEVEL: "warn" }, nodeArgs: ["--import", "./shared/src/telemetry/register.ts", ...(values.profile ? ["--cpu-prof", `--cpu-prof-dir=${path.resolve(values.profile)}`] : [])] });
    const key = await createBenchKey(service.databaseUrl, { name: "upload-bench", scopes: ["subtitles:write"], credits: 0 });
    const create = async () => {
      const response = await fetch(`${service!.url}/v1/uploads`, { method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body: JSON.stringify({ size_bytes: bytes }) });
      if (response.status !== 201) throw new Error(`POST /v1/uploads answered ${response.status}: ${await response.text()}`);
      return ((await response.json()) as { upload_url: string }).upload_url;
    };
    // One warm-up upload: the first request's one-time costs (module loading, the pool) are not the upload path's.
    await sendFile(await create(), "PUT", file, { start: 0, length: bytes });
    const rssBefore = rssOf(service.pid);
    const cpuBefore = (await treeCpuMs(service.pid)).rootMs;
    const rss = sampleRss(service.pid);
    const putMs: number[] = [];
    const tusMs: number[] = [];
    for (let i = 0; i < repeats; i += 1) {
      const put = await sendFile(await create(), "PUT", file, { start: 0, length: bytes });
      if (put.status !== 204) throw new Error(`PUT answered ${put.status}`);
      putMs.push(put.ms);
      const url = await create();
      const started = performance.now();
      for (let offset = 0; offset < bytes; offset += chunk) {
        const headers = { "tus-resumable": "1.0.0", "upload-offset": String(offset), "content-type": "application/offset+octet-stream" };
        const patch = await sendFile(url, "PATCH", file, { start: offset, length: Math.min(chunk, bytes - offset) }, headers);
        if (patch.status !== 204) throw new Error(`PATCH answered ${patch.status}`);
      }
      tusMs.push(performance.now() - started);
    }
    const growth = (rss.stop() - rssBefore) / MiB;
    // CPU time per upload in the receiving process: robust where MiB/s is not, on a shared machine.
    const apiCpu = ((await treeCpuMs(service.pid)).rootMs - cpuBefore) / (repeats * 2);
    const bare = rate(median(bareMs));
    const lines = [
      `upload of ${bytes / MiB} MiB over loopback to local storage, median of ${repeats}`,
      `  file copy (disk alone)         ${rate(median(copyMs)).toFixed(0)} MiB/s`,
      `  baseline: bare node:http PUT   ${bare.toFixed(0)} MiB/s`,
      `  API: one PUT                   ${rate(median(putMs)).toFixed(0)} MiB/s  (${(rate(median(putMs)) / bare).toFixed(2)} × baseline)`,
      `  API: tus PATCH × ${Math.ceil(bytes / chunk)} (${chunk / MiB} MiB)    ${rate(median(tusMs)).toFixed(0)} MiB/s  (${(rate(median(tusMs)) / bare).toFixed(2)} × baseline)`,
      `  CPU per upload in the receiving process: baseline ${bareCpu.toFixed(0)} ms, API ${apiCpu.toFixed(0)} ms (${(apiCpu / bareCpu).toFixed(2)} ×)`,
      `  API RSS: ${(rssBefore / MiB).toFixed(0)} MiB before, peak growth ${growth.toFixed(1)} MiB over ${repeats * 2} uploads`,
      `${Math.min(rate(median(putMs)), rate(median(tusMs))) >= TARGET_MIB_S ? "PASS" : "FAIL"} ≥ ${TARGET_MIB_S} MiB/s;  ${growth <= TARGET_RSS_MIB ? "PASS" : "FAIL"} RSS growth ≤ ${TARGET_RSS_MIB} MiB`,
    ];
    console.log(lines.join("\n"));
    return 0;
  } finally {
    await service?.stop();
    await baseline?.stop();
    await rm(dir, { recursive: true, force: true });
    if (serviceDir) await rm(serviceDir, { recursive: true, force: true });
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
