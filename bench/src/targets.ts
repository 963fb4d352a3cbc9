import { Type, type Static } from "@sinclair/typebox";

/** A benchmark target checked against what this run measured: the one shape both benchmarks report. */
export const TargetCheckSchema = Type.Object({ name: Type.String(), measured: Type.Number(), limit: Type.Number(), unit: Type.String(), pass: Type.Boolean() });
export type TargetCheck = Static<typeof TargetCheckSchema>;

/** Met while `measured` stays at or under `limit`. */
export function atMost(name: string, measured: number, limit: number, unit: string): TargetCheck {
  return { name, measured, limit, unit, pass: measured <= limit };
}

/** Met while `measured` reaches `limit`. */
export function atLeast(name: string, measured: number, limit: number, unit: string): TargetCheck {
  return { name, measured, limit, unit, pass: measured >= limit };
}
