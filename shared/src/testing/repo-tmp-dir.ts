import { join } from "node:path";

/** Scratch space shared by test processes (cached fixtures, the test CA), found from this file's place in shared/src/testing; ignored by git. */
export const REPO_TMP_DIR = join(import.meta.dirname, "..", "..", "..", ".tmp");
