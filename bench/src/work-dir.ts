import { chmod, mkdtemp } from "node:fs/promises";
import os from "node:os";
import path from "node:path";

/** A fresh folder for a benchmark's service and files; run as root, embedded PostgreSQL initialises its cluster in it as the postgres user. */
export async function makeWorkDir(): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "caption-bench-"));
  await chmod(dir, 0o755);
  return dir;
}
