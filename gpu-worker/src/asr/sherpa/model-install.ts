import { mkdir, mkdtemp, readdir, rename, rm } from "node:fs/promises";
import { dirname, join } from "node:path";
import { execa } from "execa";
import { downloadFile, ModelDownloadError } from "./model-download.ts";
import { checkModelFiles, readInstallRecord, resolveInside, writeInstallRecord } from "./model-files.ts";
import type { InstalledModel, ModelSpec } from "./model-manifest.ts";

export interface InstallModelOptions {
  /** Models land in `<modelDir>/<name>/`. */
  modelDir: string;
  signal: AbortSignal;
  /** Progress and warnings, one line each (the CLI prints them on stderr). */
  report: (line: string) => void;
  /**
   * Accept a download the manifest pins no sha256 for, and record the hash it had: every later
   * download of that URL into this folder must then match it (`--trust-on-first-use`).
   */
  trustOnFirstUse?: boolean;
  /**
   * Base URL of a mirror holding the release files under their upstream file names (`ASR_MODEL_MIRROR`):
   * each download is fetched from there instead, held to the same pins, and recorded under its upstream URL.
   */
  mirror?: string | undefined;
}

type DownloadRecord = NonNullable<InstalledModel["downloads"]>[number];
type Expectation = { sha256?: string; size?: number; pinned: boolean };

export type InstallOutcome = "installed" | "already-installed";

/** Where `url` is fetched from: the mirror's file of the same name, or upstream. */
function mirrored(url: string, mirror: string | undefined): string {
  if (mirror === undefined) return url;
  const name = new URL(url).pathname.split("/").pop() ?? "";
  // Re-encoded whole, so a name with a ":" cannot read as a URL scheme of its own.
  return new URL(encodeURIComponent(decodeURIComponent(name)), mirror.endsWith("/") ? mirror : `${mirror}/`).href;
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
  const expected = await expectedDownloads(spec, target, options.trustOnFirstUse === true);
  await mkdir(modelDir, { recursive: true });
  await removeStaleStaging(modelDir, spec.name);
  const staging = await mkdtemp(join(modelDir, `.${spec.name}.partial-`));
  const downloads: DownloadRecord[] = [];
  const fetchInto = async (url: string, destination: string, label: string) => {
    const pin = expected.get(url);
    const pinnedBy = pin?.pinned === false ? "the first download (installed.json)" : "the manifest";
    const from = mirrored(url, options.mirror);
    if (from !== url) report(`${label}: fetching ${url} from the mirror`);
    const got = await downloadFile(from, destination, { sha256: pin?.sha256, size: pin?.size, pinnedBy, label, signal, report });
    if (pin?.sha256 === undefined) {
      report(`WARNING ${label}: the manifest pins no checksum; trusting this first download (--trust-on-first-use) and recording sha256 ${got.sha256}, ${got.size} bytes`);
    }
    downloads.push({ url, ...got, pinned: pin?.pinned ?? false });
  };
  try {
    const modelFolder = join(staging, "model");
    await mkdir(modelFolder);
    if (spec.archive) {
      const archive = join(staging, "archive.tar.bz2");
      await fetchInto(spec.archive.url, archive, `${spec.name} archive`);
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
        await fetchInto(file.url, destination, `${spec.name}/${file.path}`);
      }
    }

    const problems = await checkModelFiles(modelFolder, spec.files, signal);
    if (problems.length > 0) throw new ModelDownloadError(`${spec.name}: refused, ${problems.join("; ")}`);
    await writeInstallRecord(modelFolder, spec, signal, downloads);

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

/** Staging folders a killed run left behind (a model folder itself is only ever renamed into place whole). */
async function removeStaleStaging(modelDir: string, name: string): Promise<void> {
  const prefix = `.${name}.partial-`;
  for (const entry of await readdir(modelDir)) {
    if (entry.startsWith(prefix)) await rm(join(modelDir, entry), { recursive: true, force: true });
  }
}

/**
 * What each URL of `spec` must hash to: the manifest's pin, else the hash an earlier trust-on-first-use
 * install into `target` recorded. A URL with neither is refused unless the operator trusts it now.
 */
async function expectedDownloads(spec: ModelSpec, target: string, trustOnFirstUse: boolean): Promise<Map<string, Expectation>> {
  const sources = spec.archive ? [spec.archive] : spec.files.flatMap((f) => (f.url === undefined ? [] : [{ ...f, url: f.url }]));
  const recorded = (await readInstallRecord(target))?.downloads ?? [];
  const expected = new Map<string, Expectation>();
  const unpinned: string[] = [];
  for (const source of sources) {
    const earlier = recorded.find((d) => d.url === source.url);
    if (source.sha256 !== undefined) expected.set(source.url, { sha256: source.sha256, size: source.size, pinned: true });
    else if (earlier) expected.set(source.url, { sha256: earlier.sha256, size: earlier.size, pinned: false });
    else unpinned.push(source.url);
  }
  if (unpinned.length > 0 && !trustOnFirstUse) {
    throw new ModelDownloadError(
      `${spec.name}: refused, the manifest pins no sha256 for ${unpinned.join(", ")}; pin it in the manifest, or pass --trust-on-first-use to accept what is downloaded now and record its hash`,
    );
  }
  return expected;
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
