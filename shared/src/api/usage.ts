import { Type, type Static } from "@sinclair/typebox";

const Count = Type.Integer({ minimum: 0 });
export const UsageSchema = Type.Object(
  {
    available_seconds: Count,
    reserved_seconds: Count,
    consumed_seconds: Count,
    active_jobs: Count,
    concurrency_limit: Count,
    stored_bytes: Type.Integer({
      minimum: 0,
      description:
        "Bytes the account's kept files take (until they expire): each job's outputs, each distinct source video once however many render jobs reuse it, and each finished upload until it is deleted",
    }),
  },
  { additionalProperties: false, $id: "Usage" },
);
export type Usage = Static<typeof UsageSchema>;
