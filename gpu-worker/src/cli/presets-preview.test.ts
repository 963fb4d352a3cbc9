import { test } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { execa } from "execa";

const CLI = path.join(import.meta.dirname, "presets-preview.ts");

for (const [name, args, message] of [
  ["without --preset", [], /--preset is required/],
  ["with an unknown preset", ["--preset", "sparkle"], /unknown preset or orientation: sparkle/],
  ["with an unknown orientation", ["--preset", "karaoke", "--orientation", "square"], /unknown preset or orientation/],
  ["with an unknown option", ["--preset", "karaoke", "--fps", "60"], /Unknown option '--fps'/],
] as const) {
  test(`presets:preview ${name} exits 2 with usage`, async () => {
    const result = await execa(process.execPath, [CLI, ...args], { reject: false });
    assert.equal(result.exitCode, 2);
    assert.match(result.stderr, message);
    assert.match(result.stderr, /usage: presets-preview --preset ID/);
  });
}

test("presets:preview --help lists the presets", async () => {
  const { stdout } = await execa(process.execPath, [CLI, "--help"]);
  assert.match(stdout, /thin&bold/);
});
