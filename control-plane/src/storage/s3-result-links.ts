import { GetObjectCommand, type S3Client } from "@aws-sdk/client-s3";
import { getSignedUrl } from "@aws-sdk/s3-request-presigner";
import { contentDisposition } from "./download-headers.ts";
import type { ResultLinks } from "./result-links.ts";

/** SigV4 presigned URLs live at most seven days. */
const MAX_PRESIGN_SECONDS = 7 * 24 * 3600;

/**
 * Presigned GET URLs straight to the object store, so downloads never pass through the API. They
 * expire at the job's `expires_at` (or earlier, when the signing credentials are temporary ones that
 * run out first, as with IRSA/STS).
 */
export function createS3ResultLinks(client: S3Client, location: { bucket: string; prefix: string }, now: () => Date): ResultLinks {
  return {
    async url(key, expiresAt) {
      // SigV4 dates have whole seconds: sign at the current whole second and round the lifetime down,
      // so the link dies within the second before expires_at, never after it.
      const signingDate = new Date(Math.floor(now().getTime() / 1000) * 1000);
      const seconds = Math.floor((expiresAt.getTime() - signingDate.getTime()) / 1000);
      const expiresIn = Math.min(Math.max(seconds, 1), MAX_PRESIGN_SECONDS);
      // The store answers with the headers the link asks for (S3 has no way to add X-Content-Type-Options).
      const disposition = contentDisposition(key.slice(key.lastIndexOf("/") + 1));
      const command = new GetObjectCommand({ Bucket: location.bucket, Key: `${location.prefix}${key}`, ...(disposition ? { ResponseContentDisposition: disposition } : {}) });
      return getSignedUrl(client, command, { expiresIn, signingDate });
    },
  };
}
