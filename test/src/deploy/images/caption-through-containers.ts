// What the check proves through the running containers: a key from the admin CLI inside the API
// container (as the chart's NOTES say), a spoken clip uploaded and captioned end to end by the model built
// into the worker image, non-root processes, health endpoints, a read-only root filesystem that needs only
// the chart's volumes, and a SIGTERM that lets the worker's running job finish.
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { setTimeout as sleep } from "node:timers/promises";
import type { Podman } from "./podman.ts";
import { until, type Service } from "./service-containers.ts";
import type { SpokenClip } from "./spoken-clip.ts";

interface Job {
  id: string;
  status: string;
  usage: { billed_seconds: number };
  video: { url: string } | null;
  subtitles: { srt_url: string; transcript_url: string } | null;
  error: { code: string; message: string } | null;
}

export interface Api {
  key: string;
  call(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>;
}

/** A key made the way an operator makes one: the admin CLI run inside the API container. */
export async function createKey(podman: Podman, service: Service): Promise<Api> {
  const printed = await podman(["exec", service.names.api, "node", "control-plane/src/cli/admin.ts", "keys:create", "--name", "images-check", "--scopes", "subtitles:write,subtitles:read", "--credits", "3600"]);
  const key = (JSON.parse(printed.split("\n").at(-1) ?? "{}") as { api_key?: string }).api_key;
  assert.match(key ?? "", /^cap_/, printed);
  const call = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${service.apiUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, body: await response.json().catch(() => null) };
  };
  return { key: key ?? "", call };
}

/** Uploads the clip with one PUT and submits it; the job's id. */
export async function submitClip(api: Api, clip: SpokenClip): Promise<string> {
  const bytes = await readFile(clip.path);
  const upload = await api.call("POST", "/v1/uploads", { size_bytes: bytes.length });
  assert.equal(upload.status, 201, JSON.stringify(upload.body));
  const put = await fetch(upload.body.upload_url as string, { method: "PUT", body: bytes });
  assert.ok(put.ok, `PUT upload: ${put.status}`);
  const submitted = await api.call("POST", "/v1/subtitles", { upload_id: upload.body.id, preset: "classic" });
  assert.equal(submitted.status, 202, JSON.stringify(submitted.body));
  return submitted.body.id as string;
}

export async function waitForJob(api: Api, id: string, seconds = 600): Promise<Job> {
  return until(`job ${id} finished`, seconds, async () => {
    const { body } = await api.call("GET", `/v1/jobs/${id}`);
    return ["completed", "failed", "canceled"].includes((body as Job).status) ? (body as Job) : undefined;
  });
}

/** The job completed, its SRT and transcript hold the words the built-in model hears, in order, and it was billed. */
export async function checkCaptioned(job: Job, clip: SpokenClip, durationSeconds: number): Promise<void> {
  assert.equal(job.status, "completed", JSON.stringify(job.error));
  const srt = await (await fetch(job.subtitles?.srt_url ?? "")).text();
  const said = [...srt.toLowerCase().matchAll(/[a-z]+/g)].map((m) => m[0]).filter((w) => w === "hello" || w === "world");
  assert.deepEqual(said, clip.words, srt);
  const transcript = (await (await fetch(job.subtitles?.transcript_url ?? "")).json()) as { words: { text: string }[] };
  assert.deepEqual(transcript.words.map((w) => w.text.toLowerCase().replace(/[^a-z]/g, "")), clip.words);
  const video = await fetch(job.video?.url ?? "");
  assert.equal(video.status, 200);
  assert.ok((await video.arrayBuffer()).byteLength > 10_000);
  assert.equal(job.usage.billed_seconds, Math.ceil(durationSeconds));
}

/** Every process of the container runs as a user other than root. */
export async function checkNonRoot(podman: Podman, container: string): Promise<string[]> {
  const rows = (await podman(["top", container, "user", "args"])).split("\n").slice(1).filter(Boolean);
  assert.ok(rows.length > 0, container);
  for (const row of rows) assert.doesNotMatch(row, /^root\s/, `${container}: ${row}`);
  return rows;
}

/** The root filesystem refuses writes; the chart's volumes take them. */
export async function checkReadOnlyRoot(podman: Podman, container: string): Promise<void> {
  const write = (file: string) => podman(["exec", container, "sh", "-c", `echo probe > ${file} && rm ${file}`]).then(() => true, () => false);
  assert.equal(await write("/opt/caption/probe"), false, `${container}: the image's files are writable`);
  assert.equal(await write("/probe"), false, `${container}: / is writable`);
  for (const dir of ["/data", "/tmp"]) assert.equal(await write(`${dir}/probe`), true, `${container}: ${dir} (a volume) is not writable`);
}

/**
 * SIGTERM to the worker while it runs `id`: the job finishes (completed), the worker then exits 0 on its
 * own, inside the grace the chart gives it, and its log says it stopped taking work before the job ended.
 */
export async function checkDrain(podman: Podman, service: Service, api: Api, id: string): Promise<{ secondsToExit: number }> {
  await until(`job ${id} running`, 300, async () => {
    const { body } = await api.call("GET", `/v1/jobs/${id}`);
    return ["ingesting", "transcribing", "rendering"].includes((body as Job).status) ? true : undefined;
  });
  await sleep(500);
  const signalled = Date.now();
  await podman(["kill", "--signal", "TERM", service.names.worker]);
  const exit = await podman(["wait", service.names.worker]);
  const secondsToExit = (Date.now() - signalled) / 1000;
  assert.equal(exit.trim(), "0", `the worker's exit status after SIGTERM\n${await service.logs(service.names.worker)}`);
  assert.ok(secondsToExit < service.pods.worker.terminationGraceSeconds, `exited after ${secondsToExit} s`);
  const { body } = await api.call("GET", `/v1/jobs/${id}`);
  assert.equal((body as Job).status, "completed", JSON.stringify(body));
  const lines = (await service.logs(service.names.worker)).split("\n").filter((l) => l.startsWith("{")).map((l) => JSON.parse(l) as Record<string, unknown>);
  const stopping = lines.findIndex((l) => l.msg === "worker stopping");
  const completed = lines.findIndex((l) => l.msg === "job completed" && l.job_id === id);
  assert.ok(stopping >= 0 && completed > stopping, "the job completed after the worker began to stop");
  assert.equal(lines[stopping]?.in_flight, 1);
  return { secondsToExit };
}
