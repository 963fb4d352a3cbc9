import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { spawnService } from "../runtime/service-process.ts";

let dir: string;
let script: `${string}.ts`;

before(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "service-process-"));
  script = path.join(dir, "service.ts") as `${string}.ts`;
  // Logs a line, then another once it sees SIGTERM (or at once with EXIT_AT_ONCE), writes a stray line to stderr and exits 3.
  // It listens for SIGTERM before it says "up": the signal may come as soon as the line is out.
  await writeFile(
    script,
    `const log = (msg: string) => process.stdout.write(JSON.stringify({ level: 30, msg, port: process.env.PORT }) + "\\n");
const finish = () => { log("bye"); process.stderr.write("not json\\n"); process.exit(3); };
process.on("SIGTERM", finish);
log("up");
if (process.env.EXIT_AT_ONCE === "1") finish();
setInterval(() => undefined, 1000);
`,
  );
});
after(() => rm(dir, { recursive: true, force: true }));

for (const mode of ["piped", "to a log file"] as const) {
  test(`output ${mode}: lines are waited for, the last ones are read by the exit, stderr kept apart`, async () => {
    const options = mode === "piped" ? {} : { logFile: path.join(dir, "service.log") };
    const service = spawnService(script, {}, options);
    const up = await service.waitForLine((entry) => entry.msg === "up", 30_000);
    assert.equal(up.port, "0", "the service listens on a free port");
    assert.equal(service.running(), true);
    assert.equal(await service.stop(), 3);
    assert.deepEqual(service.lines.map((entry) => entry.msg), ["up", "bye"]);
    assert.equal(service.stderr(), "not json\n");
    assert.equal((await service.waitForLine((entry) => entry.msg === "bye")).msg, "bye");
  });

  test(`output ${mode}: a wait for a line that never comes fails when the process exits, naming it`, async () => {
    const options = mode === "piped" ? {} : { logFile: path.join(dir, "early.log") };
    const service = spawnService(script, { EXIT_AT_ONCE: "1" }, options);
    await assert.rejects(service.waitForLine((entry) => entry.msg === "never", 30_000), /exited with 3 before the log line[\s\S]*"bye"/u);
  });
}
