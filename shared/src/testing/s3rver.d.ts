// s3rver ships no types; only what startLoopbackS3 uses.
declare module "s3rver" {
  import type { IncomingMessage, ServerResponse } from "node:http";
  interface S3rverOptions {
    directory: string;
    silent?: boolean;
    configureBuckets?: { name: string }[];
  }
  export default class S3rver {
    constructor(options: S3rverOptions);
    configureBuckets(): Promise<void>;
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    logger: { exceptions: { unhandle(): void }; close(): void };
  }
}
