import { createHash } from "node:crypto";
import { createWriteStream } from "node:fs";
import { Transform, type Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { StoredFileFingerprint } from "./result-store.ts";

/** Streams a stored file's bytes into a local file, hashing them on the way; aborts with `signal`. */
export async function copyToFile(source: Readable, destinationPath: string, signal?: AbortSignal): Promise<StoredFileFingerprint> {
  const hash = createHash("sha256");
  let bytes = 0;
  const measure = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      hash.update(chunk);
      bytes += chunk.length;
      done(null, chunk);
    },
  });
  await pipeline(source, measure, createWriteStream(destinationPath), ...(signal ? [{ signal }] : []));
  return { bytes, sha256: hash.digest("hex") };
}
