// Operator commands; each prints one JSON object on stdout (logs go to stderr).
//   keys:create --name N --scopes subtitles:write[,subtitles:read] --credits S [--concurrency C] [--rate-limit R] [--account ID]
//   keys:revoke --key-prefix P | credits:grant --account ID --seconds S | accounts:show --account ID
import pino from "pino";
import { parseEnv } from "@caption/shared/config/env";
import { CONNECTION_BUDGET } from "@caption/shared/db/connection-budget";
import { createDatabase } from "@caption/shared/db/database";
import { migrateToLatest } from "@caption/shared/db/migrator";
import { parseCommand } from "@caption/shared/runtime/command-line";
import { locateDatabase } from "../db/connect.ts";
import { createKey, grantAccountCredits, revokeKey, showAccount } from "../services/account-admin.ts";

const USAGE = `usage: npm run admin -- <command> [options]
  keys:create   --name N --scopes subtitles:write[,subtitles:read] --credits SECONDS [--concurrency N] [--rate-limit PER_MINUTE] [--account ID]
  keys:revoke   --key-prefix PREFIX
  credits:grant --account ID --seconds N
  accounts:show --account ID`;

const parsed = parseCommand(
  {
    allowPositionals: true,
    strict: true,
    options: {
      name: { type: "string" },
      scopes: { type: "string" },
      credits: { type: "string" },
      concurrency: { type: "string" },
      "rate-limit": { type: "string" },
      account: { type: "string" },
      "key-prefix": { type: "string" },
      seconds: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  },
  USAGE,
);
if (typeof parsed === "number") process.exit(parsed);
const { positionals, values } = parsed;

function required(name: keyof typeof values): string {
  const value = values[name];
  if (typeof value !== "string" || value === "") throw new Error(`--${name} is required\n${USAGE}`);
  return value;
}

function wholeNumber(name: keyof typeof values, fallback?: number): number | undefined {
  const raw = values[name];
  if (raw === undefined) return fallback;
  if (typeof raw !== "string" || !/^\d+$/.test(raw)) throw new Error(`--${name} must be a whole number`);
  return Number(raw);
}

const [command] = positionals;
if (!command) {
  console.error(USAGE);
  process.exit(2);
}

const logger = pino({ level: process.env.LOG_LEVEL ?? "warn" }, pino.destination(2));
const location = await locateDatabase(parseEnv(), logger);
const db = createDatabase(location.url, { max: CONNECTION_BUDGET.oneOff.admin, applicationName: "caption-admin" });
try {
  await migrateToLatest(db);
  const result = await (async () => {
    switch (command) {
      case "keys:create":
        return createKey(db, {
          name: required("name"),
          scopes: required("scopes").split(",").map((s) => s.trim()).filter(Boolean),
          credits: wholeNumber("credits", 0) ?? 0,
          concurrency: wholeNumber("concurrency"),
          ratePerMinute: wholeNumber("rate-limit"),
          accountId: values.account,
        });
      case "keys:revoke":
        return revokeKey(db, required("key-prefix"), new Date());
      case "credits:grant":
        return grantAccountCredits(db, required("account"), wholeNumber("seconds") ?? 0);
      case "accounts:show":
        return showAccount(db, required("account"));
      default:
        throw new Error(`unknown command ${command}\n${USAGE}`);
    }
  })();
  console.log(JSON.stringify(result));
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
} finally {
  await db.destroy();
  await location.stop();
}
