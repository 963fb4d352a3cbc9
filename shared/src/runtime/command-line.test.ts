import assert from "node:assert/strict";
import { test } from "node:test";
import { parseCommand, parseCommandLine } from "./command-line.ts";

const USAGE = "usage: thing [--top N] <file>";
const options = { top: { type: "string" }, help: { type: "boolean", short: "h", default: false } } as const;

test("options and operands come back parsed", (t) => {
  t.mock.method(process.stdout, "write", () => true);
  const parsed = parseCommand({ args: ["a.json", "--top", "5", "b"], options, allowPositionals: true, strict: true }, USAGE);
  assert.notEqual(typeof parsed, "number");
  if (typeof parsed === "number") return;
  assert.equal(parsed.values.top, "5");
  assert.deepEqual(parsed.positionals, ["a.json", "b"]);
  assert.deepEqual({ ...(parseCommandLine({ args: ["--top", "7"], options, strict: true }, USAGE) as object) }, { top: "7", help: false });
});

test("a bad option prints the message and the usage on stderr and yields 2; --help prints the usage and yields 0", (t) => {
  const stderr = t.mock.method(process.stderr, "write", () => true);
  const stdout = t.mock.method(process.stdout, "write", () => true);
  assert.equal(parseCommand({ args: ["--nope"], options, allowPositionals: true, strict: true }, USAGE), 2);
  assert.match(String(stderr.mock.calls[0]?.arguments[0]), /--nope[\s\S]*usage: thing/u);
  assert.equal(parseCommandLine({ args: ["operand"], options, strict: true }, USAGE), 2);
  assert.equal(parseCommandLine({ args: ["-h"], options, strict: true }, USAGE), 0);
  assert.equal(String(stdout.mock.calls.at(-1)?.arguments[0]), `${USAGE}\n`);
});
