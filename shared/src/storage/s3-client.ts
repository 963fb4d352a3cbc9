import { S3Client, type S3ClientConfig } from "@aws-sdk/client-s3";
import type { Env } from "../config/env.ts";

export type S3Env = Pick<Env, "AWS_ENDPOINT_URL_S3" | "AWS_ENDPOINT_URL" | "AWS_REGION">;

/**
 * An S3 client configured the standard AWS way. Credentials come from the SDK's own provider chain
 * (AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, profiles, web identity/IRSA, instance roles). A custom
 * endpoint (MinIO, Ceph, R2, …) gets path-style addressing and checksums only where the API requires
 * them, which S3-compatible servers handle more consistently than the SDK's newer defaults.
 */
export function createS3Client(env: S3Env): S3Client {
  return new S3Client(s3ClientConfig(env));
}

/** The configuration of `createS3Client`, for libraries that build their own client (the tus S3 store). */
export function s3ClientConfig(env: S3Env): S3ClientConfig {
  const endpoint = env.AWS_ENDPOINT_URL_S3 ?? env.AWS_ENDPOINT_URL;
  if (!endpoint) return env.AWS_REGION ? { region: env.AWS_REGION } : {};
  return {
    endpoint,
    region: env.AWS_REGION ?? "us-east-1",
    forcePathStyle: true,
    requestChecksumCalculation: "WHEN_REQUIRED",
    responseChecksumValidation: "WHEN_REQUIRED",
  };
}
