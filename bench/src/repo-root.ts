import { join } from "node:path";

/** The repository root, found from this file's place in bench/src. */
export const REPO_ROOT = join(import.meta.dirname, "..", "..");
