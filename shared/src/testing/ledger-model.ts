import { randomUUID } from "node:crypto";
import fc from "fast-check";
import type { Balance } from "../db/credit-ledger.ts";
import type { LedgerRow } from "../db/tables.ts";

// A TypeScript model of the credit ledger, for the property test in db/credit-ledger.test.ts: what
// submit/grant/reserve/settle/cancel should answer, and the ops fast-check draws.

export type Settlement = "charge" | "release";
type Op =
  | { kind: "submit"; account: number }
  | { kind: "grant"; account: number; seconds: number }
  | { kind: "reserve"; job: number; seconds: number }
  | { kind: "settle"; job: number; as: Settlement }
  | { kind: "cancel"; job: number };
export type Step = Op | { kind: "parallel"; ops: Op[] };

/** An op bound to concrete ids at the start of its step; `skip` when it names a job before any exists. */
export type BoundOp =
  | { kind: "submit"; account: string; jobId: string }
  | { kind: "grant"; account: string; seconds: number }
  | { kind: "reserve"; account: string; jobId: string; seconds: number }
  | { kind: "settle"; jobId: string; as: Settlement }
  | { kind: "cancel"; jobId: string }
  | { kind: "skip" };

interface ModelJob { account: string; canceled: boolean; reserved?: number; settled?: Settlement }
export interface Model { accounts: string[]; granted: Map<string, number>; jobs: Map<string, ModelJob>; order: string[] }

export const ACCOUNTS = 2;
const jobRef = fc.nat({ max: 5 });
const opArb: fc.Arbitrary<Op> = fc.oneof(
  // Mostly account 0, so that jobs racing for one balance are common; account 1 checks isolation.
  fc.record({ kind: fc.constant("submit" as const), account: fc.constantFrom(0, 0, 0, 1) }),
  fc.record({ kind: fc.constant("grant" as const), account: fc.nat({ max: ACCOUNTS - 1 }), seconds: fc.integer({ min: 1, max: 30 }) }),
  fc.record({ kind: fc.constant("reserve" as const), job: jobRef, seconds: fc.integer({ min: 1, max: 20 }) }),
  fc.record({ kind: fc.constant("settle" as const), job: jobRef, as: fc.constantFrom<Settlement>("charge", "release") }),
  fc.record({ kind: fc.constant("cancel" as const), job: jobRef }),
);
// Races mostly pit reservations and settlements of a few jobs against each other.
const racingOpArb: fc.Arbitrary<Op> = fc.oneof(
  { arbitrary: fc.record({ kind: fc.constant("reserve" as const), job: fc.nat({ max: 2 }), seconds: fc.integer({ min: 1, max: 20 }) }), weight: 3 },
  { arbitrary: opArb, weight: 2 },
);
export const stepArb: fc.Arbitrary<Step> = fc.oneof(
  { arbitrary: opArb, weight: 2 },
  { arbitrary: fc.record({ kind: fc.constant("parallel" as const), ops: fc.array(racingOpArb, { minLength: 2, maxLength: 4 }) }), weight: 1 },
);

export function bind(op: Op, model: Model): BoundOp {
  switch (op.kind) {
    case "submit": {
      const jobId = `job_${randomUUID()}`;
      model.order.push(jobId);
      return { kind: "submit", account: model.accounts[op.account] ?? "", jobId };
    }
    case "grant":
      return { kind: "grant", account: model.accounts[op.account] ?? "", seconds: op.seconds };
    case "reserve":
    case "settle":
    case "cancel": {
      // Counted from the newest job, so racing ops tend to meet on fresh, unreserved jobs.
      const jobId = model.order[model.order.length - 1 - (op.job % Math.max(1, model.order.length))];
      const job = jobId === undefined ? undefined : model.jobs.get(jobId);
      if (jobId === undefined || !job) return { kind: "skip" };
      if (op.kind === "reserve") return { kind: "reserve", account: job.account, jobId, seconds: op.seconds };
      return op.kind === "settle" ? { kind: "settle", jobId, as: op.as } : { kind: "cancel", jobId };
    }
  }
}

const modelAvailable = (model: Model, account: string) => {
  let available = model.granted.get(account) ?? 0;
  for (const job of model.jobs.values()) if (job.account === account && job.reserved !== undefined && job.settled !== "release") available -= job.reserved;
  return available;
};

/** What the ledger should answer for `op`, applied to `model` in place. */
export function applyToModel(model: Model, op: BoundOp): unknown {
  const settle = (job: ModelJob, as: Settlement) => {
    if (job.reserved === undefined || job.settled) return 0;
    job.settled = as;
    return job.reserved;
  };
  switch (op.kind) {
    case "skip":
      return "skipped";
    case "submit":
      model.jobs.set(op.jobId, { account: op.account, canceled: false });
      return "submitted";
    case "grant":
      model.granted.set(op.account, (model.granted.get(op.account) ?? 0) + op.seconds);
      return "granted";
    case "reserve": {
      const job = model.jobs.get(op.jobId) as ModelJob;
      if (job.reserved !== undefined) return "already-reserved";
      if (modelAvailable(model, op.account) < op.seconds) return "insufficient";
      job.reserved = op.seconds;
      return "reserved";
    }
    case "settle":
      return settle(model.jobs.get(op.jobId) as ModelJob, op.as);
    case "cancel": {
      const job = model.jobs.get(op.jobId) as ModelJob;
      if (job.canceled) return 0;
      job.canceled = true;
      return settle(job, "release");
    }
  }
}

export const cloneModel = (model: Model): Model => ({
  accounts: model.accounts,
  granted: new Map(model.granted),
  jobs: new Map([...model.jobs].map(([id, job]) => [id, { ...job }])),
  order: [...model.order],
});

/** Balance recomputed in TypeScript from the raw ledger rows. */
export function recomputeBalance(rows: LedgerRow[], account: string): Balance {
  const settled = new Set(rows.filter((r) => r.kind === "charge" || r.kind === "release").map((r) => r.job_id));
  const sum = (keep: (r: LedgerRow) => boolean) => rows.filter((r) => r.account_id === account && keep(r)).reduce((total, r) => total + r.seconds, 0);
  const granted = sum((r) => r.kind === "grant");
  const consumed = sum((r) => r.kind === "charge");
  const reserved = sum((r) => r.kind === "reserve" && !settled.has(r.job_id));
  return { granted, consumed, reserved, available: granted - consumed - reserved };
}
