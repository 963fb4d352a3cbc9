import { Type, type Static } from "@sinclair/typebox";

const Count = Type.Integer({ minimum: 0 });
export const UsageSchema = Type.Object(
  { available_seconds: Count, reserved_seconds: Count, consumed_seconds: Count, active_jobs: Count, concurrency_limit: Count },
  { additionalProperties: false, $id: "Usage" },
);
export type Usage = Static<typeof UsageSchema>;
