import { EnvSchema } from "@caption/shared/config/env";

/** Variables read by libraries and the container runtime rather than by our env schema. */
const RUNTIME_VARIABLES = new Set([
  "AWS_ACCESS_KEY_ID", // the AWS SDK's own credential chain
  "AWS_SECRET_ACCESS_KEY",
  "AWS_SESSION_TOKEN",
  "NODE_ENV",
  "NODE_EXTRA_CA_CERTS",
  "NVIDIA_DRIVER_CAPABILITIES", // the NVIDIA container runtime
  "NVIDIA_VISIBLE_DEVICES",
]);

/** Whether the service (or something it runs on) reads this variable. OTEL_* belongs to the OpenTelemetry SDK. */
export function isKnownVariable(name: string): boolean {
  return name in EnvSchema.properties || RUNTIME_VARIABLES.has(name) || name.startsWith("OTEL_");
}
