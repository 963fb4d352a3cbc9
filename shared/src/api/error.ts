import { Type, type Static } from "@sinclair/typebox";

export const ErrorBodySchema = Type.Object(
  { error: Type.Object({ code: Type.String(), message: Type.String(), request_id: Type.String() }, { additionalProperties: false }) },
  { additionalProperties: false, $id: "Error" },
);
export type ErrorBody = Static<typeof ErrorBodySchema>;
