import assert from "node:assert/strict";
import { once } from "node:events";
import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { after, before, test } from "node:test";
import pino from "pino";
import { FfmpegError, runFfmpeg, runFfprobe, spawnFfmpeg, streamFfmpegOutput, type FfmpegProgress } from "./ffmpeg.ts";

let dir = "";
before(async () => {
  dir = await mkdtemp(join(tmpdir(), "ffmpeg-test-"));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

test("runFfmpeg encodes and reports progress ending with done", async () => {
  const output = join(dir, "progress.mp4");
  const seen: FfmpegProgress[] = [];
  await runFfmpeg({
    args: ["-f", "lavfi", "-i", "testsrc2=size=160x120:rate=25:duration=1", "-c:v", "libx264", "-preset", "ultrafast", "-y", output],
    onProgress: (progress) => seen.push(progress),
  });
  assert.ok((await stat(output)).size > 0);
  const last = seen.at(-1);
  assert.equal(last?.done, true);
  assert.equal(last?.frame, 25);
  assert.ok(seen.slice(0, -1).every((progress) => !progress.done));
});

test("a failing run rejects with FfmpegError carrying exit code and stderr", async () => {
  const error = await runFfmpeg({ args: ["-hide_banner", "-i", join(dir, "missing.mp4"), "-f", "null", "-"] }).then(
    () => assert.fail("expected failure"),
    (caught: unknown) => caught,
  );
  assert.ok(error instanceof FfmpegError);
  assert.equal(error.exitCode, 1);
  assert.match(error.stderrTail, /No such file or directory/);
  assert.match(error.message, /ffmpeg exited with code 1: .*No such file or directory/);
});

test("only the tail of a long stderr is kept", async () => {
  // showinfo logs every frame (~25 KB); select=0 leaves the output empty so ffmpeg then fails.
  const error = await runFfmpeg({
    args: ["-hide_banner", "-f", "lavfi", "-i", "testsrc=duration=3,showinfo", "-vf", "select=0", "-abort_on", "empty_output", "-f", "null", "-"],
  }).then(
    () => assert.fail("expected failure"),
    (caught: unknown) => caught,
  );
  assert.ok(error instanceof FfmpegError);
  assert.ok(error.stderrTail.length <= 8192, `tail is ${error.stderrTail.length} chars`);
  assert.match(error.stderrTail, /Conversion failed!\s*$/);
  assert.doesNotMatch(error.stderrTail, /n:\s+0 pts:\s+0 /);
});

test("a binary that cannot start rejects with FfmpegError without exit code", async () => {
  const error = await runFfmpeg({ binary: join(dir, "no-such-ffmpeg"), args: ["-version"] }).then(
    () => assert.fail("expected failure"),
    (caught: unknown) => caught,
  );
  assert.ok(error instanceof FfmpegError);
  assert.equal(error.exitCode, null);
  assert.match(error.message, /could not run.*ENOENT/);
});

const debugLog = (lines: Record<string, unknown>[]) => pino({ level: "debug" }, { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) });
const exits = (lines: Record<string, unknown>[]) =>
  lines.filter((line) => line.msg === "ffmpeg exited").map((line) => [line.pid, line.exit_code, line.signal, line.canceled]);

test("abort kills ffmpeg at once (SIGKILL, not asked to finish), logs how it exited and rejects with the signal's reason", async () => {
  const controller = new AbortController();
  const reason = new Error("job cancelled");
  const lines: Record<string, unknown>[] = [];
  const run = spawnFfmpeg({
    args: ["-f", "lavfi", "-re", "-i", "testsrc2=size=160x120:rate=25", "-f", "null", "-"],
    signal: controller.signal,
    onProgress: () => controller.abort(reason),
    logger: debugLog(lines),
  });
  const pid = run.pid;
  run.stdin.end();
  await assert.rejects(run.done, (error: unknown) => error === reason);
  assert.ok(pid !== undefined && !isAlive(pid));
  assert.deepEqual(exits(lines), [[pid, null, "SIGKILL", true]], "canceled, and killed: a SIGTERM would have let it flush and exit 255");
});

/** Resolves once `pid`'s main thread sits in read(2) on its standard input (Linux /proc/<pid>/syscall: number 0, fd 0). */
async function readingStdin(pid: number): Promise<void> {
  for (;;) {
    const [number, fd] = (await readFile(`/proc/${pid}/syscall`, "utf8").catch(() => "")).split(" ");
    if (number === "0" && fd === "0x0") return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

test("abort stops an ffmpeg waiting on a pipe that is never fed (a render waiting for cues), which a SIGTERM does not", async () => {
  const controller = new AbortController();
  const lines: Record<string, unknown>[] = [];
  // Two inputs, the second the caption stream on stdin, as the render has: ffmpeg blocks reading it, and a
  // SIGTERM then only sets a flag it reads once the read returns (measured: still there 3 s later).
  const run = spawnFfmpeg({
    args: ["-f", "lavfi", "-i", "testsrc2=size=160x120:rate=25", "-f", "matroska", "-i", "pipe:0", "-filter_complex", "overlay", "-f", "null", "-"],
    signal: controller.signal,
    logger: debugLog(lines),
  });
  await readingStdin(run.pid!);
  controller.abort(new Error("job cancelled"));
  await assert.rejects(run.done, /job cancelled/);
  assert.deepEqual(exits(lines), [[run.pid, null, "SIGKILL", true]]);
});

test("abort stops an ffmpeg whose output nobody reads any more (PCM for a recognizer that stopped)", async () => {
  const controller = new AbortController();
  const lines: Record<string, unknown>[] = [];
  const run = streamFfmpegOutput({
    args: ["-f", "lavfi", "-i", "sine=duration=600", "-f", "f32le", "-ac", "1", "-ar", "16000", "pipe:1"],
    signal: controller.signal,
    logger: debugLog(lines),
  });
  // One chunk read, then no more: the pipe fills and ffmpeg blocks writing.
  await once(run.stdout, "data");
  run.stdout.pause();
  controller.abort(new Error("job cancelled"));
  await assert.rejects(run.done, /job cancelled/);
  assert.deepEqual(exits(lines), [[run.pid, null, "SIGKILL", true]]);
});

test("an already aborted signal rejects with an AbortError", async () => {
  await assert.rejects(
    runFfmpeg({ args: ["-f", "lavfi", "-i", "testsrc2", "-f", "null", "-"], signal: AbortSignal.abort() }),
    { name: "AbortError" },
  );
});

test("an onProgress that throws stops ffmpeg and rejects with that error", async () => {
  const thrown = new Error("consumer failed");
  await assert.rejects(
    runFfmpeg({
      args: ["-f", "lavfi", "-re", "-i", "testsrc2=size=160x120:rate=25", "-f", "null", "-"],
      onProgress: () => {
        throw thrown;
      },
    }),
    (error: unknown) => error === thrown,
  );
});

test("spawnFfmpeg takes raw frames on stdin", async () => {
  const output = join(dir, "frames.mp4");
  const run = spawnFfmpeg({
    args: ["-f", "rawvideo", "-pix_fmt", "rgba", "-s", "16x16", "-r", "10", "-i", "pipe:0", "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-y", output],
  });
  const frame = Buffer.alloc(16 * 16 * 4, 0x80);
  for (let i = 0; i < 10; i++) {
    if (!run.stdin.write(frame)) await once(run.stdin, "drain");
  }
  run.stdin.end();
  await run.done;
  const probe = JSON.parse(await runFfprobe({ args: ["-v", "error", "-count_frames", "-show_streams", "-of", "json", output] })) as {
    streams: { nb_read_frames: string }[];
  };
  assert.equal(probe.streams[0]?.nb_read_frames, "10");
});

function writeFrame(stdin: NodeJS.WritableStream, frame: Buffer): Promise<Error | null | undefined> {
  return new Promise((resolve) => stdin.write(frame, resolve));
}

test("spawnFfmpeg: a failing ffmpeg rejects done; later writes fail without crashing", async () => {
  const run = spawnFfmpeg({ args: ["-f", "rawvideo", "-pix_fmt", "rgba", "-s", "16x16", "-i", "pipe:0", "-c:v", "no_such_encoder", "-f", "null", "-"] });
  const frame = Buffer.alloc(16 * 16 * 4);
  // ffmpeg reads some input before it looks for the encoder.
  for (let i = 0; i < 3; i++) void writeFrame(run.stdin, frame);
  await assert.rejects(run.done, (error: unknown) => error instanceof FfmpegError && /Unknown encoder 'no_such_encoder'/.test(error.message));
  assert.ok((await writeFrame(run.stdin, frame)) instanceof Error);
});

test("spawnFfmpeg: ffmpeg finishing before the writer does resolves done (EPIPE is not a failure)", async () => {
  const run = spawnFfmpeg({ args: ["-f", "rawvideo", "-pix_fmt", "rgba", "-s", "256x256", "-i", "pipe:0", "-frames:v", "1", "-f", "null", "-"] });
  const frame = Buffer.alloc(256 * 256 * 4);
  let settled = false;
  const done = run.done.finally(() => {
    settled = true;
  });
  const writes: Promise<Error | null | undefined>[] = [];
  while (!settled) {
    writes.push(writeFrame(run.stdin, frame));
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  await done;
  assert.ok((await Promise.all(writes)).some((result) => result instanceof Error));
});

test("runFfmpeg feeds an input stream", async () => {
  const pcm = Buffer.alloc(16000 * 2);
  const output = join(dir, "from-input.wav");
  await runFfmpeg({ args: ["-f", "s16le", "-ar", "16000", "-ac", "1", "-i", "pipe:0", "-y", output], input: Readable.from([pcm]) });
  const info = JSON.parse(await runFfprobe({ args: ["-v", "error", "-show_format", "-of", "json", output] })) as {
    format: { duration: string };
  };
  assert.equal(Number(info.format.duration), 1);
});

test("streamFfmpegOutput streams stdout", async () => {
  const run = streamFfmpegOutput({ args: ["-f", "lavfi", "-i", "anullsrc=r=8000:cl=mono", "-t", "0.5", "-f", "s16le", "pipe:1"] });
  let bytes = 0;
  for await (const chunk of run.stdout) bytes += (chunk as Buffer).length;
  await run.done;
  assert.equal(bytes, 8000);
});

test("a run past its deadline is killed and fails with timedOut", async () => {
  const error = await runFfmpeg({ args: ["-hide_banner", "-re", "-f", "lavfi", "-i", "testsrc=duration=60", "-f", "null", "-"], timeoutMs: 300 }).then(
    () => assert.fail("expected the deadline to stop it"),
    (caught: unknown) => caught,
  );
  assert.ok(error instanceof FfmpegError);
  assert.equal(error.timedOut, true);
  assert.equal(error.notStarted, false);
  assert.match(error.message, /ran past its deadline of 300 ms/);
});

test("a binary that cannot start is notStarted, never the input's fault", async () => {
  const error = await runFfprobe({ args: ["-version"], binary: join(dir, "no-such-ffprobe") }).then(
    () => assert.fail("expected failure"),
    (caught: unknown) => caught,
  );
  assert.ok(error instanceof FfmpegError && error.notStarted && !error.timedOut);
});
