import { constants } from "node:fs";
import { open, rename, rm } from "node:fs/promises";
import path from "node:path";

// Files under DATA_DIR that say where a local service answers or hold its key. Whoever may write DATA_DIR (a
// shared or misconfigured directory) could plant a file there, or a link to one; these functions trust only a
// regular file this user owns that no one else may read or write, and never follow a link when they write.

const NO_FOLLOW = constants.O_NOFOLLOW;

/** Creates `file` (0600) with `text`, refusing anything already at that name, a link included. */
export async function createOwnerOnlyFile(file: string, text: string): Promise<void> {
  const handle = await open(file, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NO_FOLLOW, 0o600);
  try {
    // The process's umask may have taken bits away, never added any: set exactly 0600.
    await handle.chmod(0o600);
    await handle.writeFile(text);
  } finally {
    await handle.close();
  }
}

/** Replaces `file` at once with a new 0600 file written beside it: a link at `file` is replaced, never followed. */
export async function replaceOwnerOnlyFile(file: string, text: string): Promise<void> {
  const temporary = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.tmp`);
  await rm(temporary, { force: true });
  await createOwnerOnlyFile(temporary, text);
  await rename(temporary, file);
}

/** `file`'s text, the reason it is not trusted, or null when there is nothing at that name. */
export type OwnerOnlyRead = { text: string } | { refused: string } | null;

/** Reads `file` if it is a regular file (not a link) owned by this user, with no access for group or others. */
export async function readOwnerOnlyFile(file: string): Promise<OwnerOnlyRead> {
  let handle;
  try {
    // Non-blocking: a FIFO planted at the name would otherwise wait for a writer.
    handle = await open(file, constants.O_RDONLY | NO_FOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return null;
    return { refused: code === "ELOOP" ? "is a symbolic link" : `cannot be read (${code})` };
  }
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) return { refused: "is not a regular file" };
    const uid = process.getuid?.();
    if (uid !== undefined && stats.uid !== uid) return { refused: `belongs to uid ${stats.uid}, not to this user (uid ${uid})` };
    if ((stats.mode & 0o077) !== 0) return { refused: `has mode ${(stats.mode & 0o777).toString(8).padStart(4, "0")}; only its owner may read or write it (0600)` };
    return { text: await handle.readFile("utf8") };
  } finally {
    await handle.close();
  }
}
