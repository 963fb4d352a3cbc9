import { join } from "node:path";
import { verifyOnnxModelFile } from "./verify-model-file.ts";

const REPO_ROOT = join(import.meta.dirname, "..", "..", "..");

/**
 * Silero VAD v6.2 (MIT, snakers4/silero-vad), taken from a pinned npm package: @ricky0123/vad-web
 * 0.0.31 ships it byte for byte as dist/silero_vad_v6.onnx. (Its silero_vad_v5.onnx, and the
 * silero_vad_v6.onnx of faster-whisper, are other models; sherpa-onnx's Vad loads this one.)
 */
export const SILERO_VAD = {
  name: "silero-vad-v6.2",
  npmPackage: "@ricky0123/vad-web",
  npmVersion: "0.0.31",
  /** npm's integrity string of that version's tarball. */
  tarballIntegrity: "sha512-ePVq8TvB21sdHSxVMZOEIf9JVa7MAYpaIaNXeGgsPOiMCN8xbPCdF2LS5aYj7VRR3ZxzutedgV9ZplV65IA1Fg==",
  /** The file inside the tarball. */
  member: "package/dist/silero_vad_v6.onnx",
  sha256: "1a153a22f4509e292a94e67d6f9b85e8deb25b4988682b7e174c65279d8788e3",
  size: 2_327_524,
} as const;

/** Installed by `npm run models:download` (and so by `npm run setup` and the worker image build); ignored by git. */
export const DEFAULT_SILERO_VAD_MODEL = join(REPO_ROOT, "gpu-worker", "models", SILERO_VAD.name, "silero_vad.onnx");

export class VadModelMissingError extends Error {
  override name = "VadModelMissingError";
}

/** Refuses anything but the pinned file: size, ONNX header and sha256 (a corrupt .onnx would abort the process natively). */
export async function verifySileroVad(path: string = DEFAULT_SILERO_VAD_MODEL): Promise<void> {
  try {
    await verifyOnnxModelFile(path, { minBytes: SILERO_VAD.size, maxBytes: SILERO_VAD.size, sha256: SILERO_VAD.sha256 });
  } catch (error) {
    throw new VadModelMissingError(`the Silero VAD model is missing or damaged (${(error as Error).message}): install it with npm run models:download`, { cause: error });
  }
}
