import { createHash } from "node:crypto";
import { mkdir, mkdtemp, open, rename, rm, stat } from "node:fs/promises";
import { dirname, join } from "node:path";
import { execa } from "execa";
import { checkModelFiles, readInstallRecord, resolveInside, writeInstallRecord } from "./model-files.ts";
import type { ModelSpec } from "./model-manifest.ts";

export interface InstallModelOptions {
  /** Models land in `<modelDir>/<name>/`. */
  modelDir: string;
  signal: AbortSignal;
  /** Progress and warnings, one line each (the CLI prints them on stderr). */
  report: (line: string) => void;
}

/** How long a download may wait for the server's answer (not for the whole body). */
const RESPONSE_TIMEOUT_MS = 15_000;

export type InstallOutcome = "installed" | "already-installed";

export class ModelDownloadError extends Error {
  override name = "ModelDownloadError";
}

/**
 * Downloads, checks and installs one model. Everything is assembled in a hidden staging folder
 * beside the target and renamed into place only once every file matches what the manifest pins,
 * so a failed or refused download leaves nothing behind and a model folder is never half-written.
 */
export async function installModel(spec: ModelSpec, options: InstallModelOptions): Promise<InstallOutcome> {
  const { modelDir, signal, report } = options;
  const target = join(modelDir, spec.name);
  if (await alreadyInstalled(spec, target, signal)) {
    report(`${spec.name}: already installed and verified in ${target}`);
    return "already-installed";
  }
  await mkdir(modelDir, { recursive: true });
  const staging = await mkdtemp(join(modelDir, `.${spec.name}.partial-`));
  try {
    const modelFolder = join(staging, "model");
    await mkdir(modelFolder);
    if (spec.archive) {
      const archive = join(staging, "archive.tar.bz2");
      await download(spec.archive.url, archive, { ...spec.archive, label: `${spec.name} archive`, signal, report });
      const extracted = join(staging, "extracted");
      await mkdir(extracted);
      const members = spec.files.map((f) => `${spec.archive?.root}/${f.path}`);
      await execa("tar", ["-xjf", archive, "-C", extracted, "--", ...members], { cancelSignal: signal }).catch((error: unknown) => {
        throw new ModelDownloadError(`${spec.name}: could not unpack ${spec.archive?.url} (needs tar and bzip2)`, { cause: error });
      });
      for (const file of spec.files) {
        const destination = resolveInside(modelFolder, file.path);
        await mkdir(dirname(destination), { recursive: true });
        await rename(resolveInside(extracted, `${spec.archive.root}/${file.path}`), destination);
      }
    } else {
      for (const file of spec.files) {
        if (file.url === undefined) throw new ModelDownloadError(`${spec.name}: ${file.path} has no url`);
        const destination = resolveInside(modelFolder, file.path);
        await mkdir(dirname(destination), { recursive: true });
        await download(file.url, destination, { ...file, label: `${spec.name}/${file.path}`, signal, report });
      }
    }

    const problems = await checkModelFiles(modelFolder, spec.files, signal);
    if (problems.length > 0) throw new ModelDownloadError(`${spec.name}: refused, ${problems.join("; ")}`);
    for (const file of spec.files.filter((f) => f.sha256 === undefined)) {
      report(`WARNING ${spec.name}/${file.path}: checksum not pinned in the manifest; recording the downloaded file's sha256 as the reference`);
    }
    await writeInstallRecord(modelFolder, spec, signal);

    const previous = join(staging, "previous");
    const hadPrevious = await rename(target, previous).then(
      () => true,
      () => false,
    );
    await rename(modelFolder, target);
    report(`${spec.name}: installed in ${target}${hadPrevious ? " (replacing a copy that failed verification)" : ""}`);
    return "installed";
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

/** Installed with an intact record whose files still match it and every checksum the manifest pins. */
async function alreadyInstalled(spec: ModelSpec, target: string, signal: AbortSignal): Promise<boolean> {
  const record = await readInstallRecord(target);
  if (!record) return false;
  const sameFiles = spec.files.every((file) => {
    const recorded = record.files.find((r) => r.path === file.path && r.role === file.role);
    return recorded !== undefined && (file.sha256 === undefined || file.sha256 === recorded.sha256) && (file.size === undefined || file.size === recorded.size);
  });
  return sameFiles && (await checkModelFiles(target, record.files, signal)).length === 0;
}

interface DownloadOptions {
  sha256?: string;
  size?: number;
  label: string;
  signal: AbortSignal;
  report: (line: string) => void;
}

/** Streams `url` into `destination`, hashing as it goes; refuses a size or sha256 other than the pinned one. */
async function download(url: string, destination: string, options: DownloadOptions): Promise<void> {
  const { label, signal, report } = options;
  // A host that drops packets would otherwise hold `npm run setup` for minutes; the body may take its time.
  const answered = new AbortController();
  const noAnswer = setTimeout(() => answered.abort(new Error(`no answer within ${RESPONSE_TIMEOUT_MS / 1000} s`)), RESPONSE_TIMEOUT_MS);
  const response = await fetch(url, { signal: AbortSignal.any([signal, answered.signal]), redirect: "follow" })
    .catch((error: unknown) => {
      const reason = (error as { cause?: { code?: string; message?: string } }).cause;
      throw new ModelDownloadError(`${label}: ${url} is unreachable (${reason?.code ?? reason?.message ?? (error as Error).message})`, { cause: error });
    })
    .finally(() => clearTimeout(noAnswer));
  if (!response.ok || !response.body) throw new ModelDownloadError(`${label}: ${url} answered HTTP ${response.status}`);
  const announced = Number(response.headers.get("content-length") ?? Number.NaN);
  const expected = options.size ?? (Number.isFinite(announced) ? announced : undefined);
  report(`${label}: downloading ${url}${expected ? ` (${megabytes(expected)})` : ""}`);
  if (options.size !== undefined && Number.isFinite(announced) && announced !== options.size) {
    await response.body.cancel();
    throw new ModelDownloadError(`${label}: ${url} announces ${announced} bytes, the manifest pins ${options.size}`);
  }

  const hash = createHash("sha256");
  const file = await open(destination, "w");
  let received = 0;
  let reported = -1;
  try {
    for await (const chunk of response.body) {
      hash.update(chunk);
      await file.write(chunk);
      received += chunk.byteLength;
      if (options.size !== undefined && received > options.size) {
        throw new ModelDownloadError(`${label}: more than the ${options.size} bytes the manifest pins`);
      }
      const step = expected ? Math.floor((received / expected) * 20) : Math.floor(received / (32 << 20));
      if (step > reported) {
        reported = step;
        report(`${label}: ${megabytes(received)}${expected ? ` of ${megabytes(expected)} (${Math.floor((received / expected) * 100)}%)` : ""}`);
      }
    }
  } finally {
    await file.close();
  }
  const actual = hash.digest("hex");
  if (options.size !== undefined && received !== options.size) {
    throw new ModelDownloadError(`${label}: got ${received} bytes, the manifest pins ${options.size}`);
  }
  if (options.sha256 !== undefined && actual !== options.sha256) {
    throw new ModelDownloadError(`${label}: sha256 ${actual} does not match the pinned ${options.sha256}; refused`);
  }
  if (options.sha256 === undefined) report(`WARNING ${label}: checksum not pinned in the manifest (got sha256 ${actual})`);
  report(`${label}: ${megabytes((await stat(destination)).size)} received${options.sha256 ? ", sha256 verified" : ""}`);
}

const megabytes = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;
