/** Absolute paths (and `file:` URLs) as tools print them: `/data/work/job_…/source: Invalid data`. */
const SERVER_PATH = /(?<=^|[\s'"(=[])(?:file:)?\/[^\s'"():,]*/g;

/** `message` with every absolute path replaced by "the file": job messages never show the worker's disk. */
export function withoutPaths(message: string): string {
  return message.replace(SERVER_PATH, "the file");
}
