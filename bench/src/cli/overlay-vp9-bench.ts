// `npm run bench:overlay-vp9 [-- --preset glow --seconds 8]`: the CPU of the overlay WebM's two VP9 encoders, today's
// (ffmpeg's libvpx-vp9 given the whole 1080×1920 frame, render/overlay-output.ts's arguments) against libvpx driven
// in-process with an active map (media/vp9-encoder.ts: only the 16×16 blocks that changed are coded), on the frames
// the real painter makes of a caption. A benchmark, not a test: prints the ratios and exits 0.
import { spawn } from "node:child_process";
import { readFile, rm, stat } from "node:fs/promises";
import path from "node:path";
import { setTimeout } from "node:timers/promises";
import {
  IvfWriter, openVp9Encoder, updateBandI420, updatePlane, type Vp9Encoder, type Vp9Packet,
} from "@caption/gpu-worker/media";
import { PRESET_IDS, type PresetId } from "@caption/shared/api/preset";
import { parseCommandLine } from "@caption/shared/runtime/command-line";
import { parseProcStatCpu } from "../pipeline/cpu-clock.ts";
import { bandFrames, blankFrames, FRAME, placeBand, type BandFrame } from "../overlay/vp9-streams.ts";
import { makeWorkDir } from "../work-dir.ts";

const USAGE = `usage: overlay-vp9-bench [--preset glow] [--seconds 8]
  --preset P    the caption preset drawn (default glow: a glow pulsing on the spoken word, alpha changing every frame)
  --seconds S   seconds of captions at 30 fps (default 8)`;

// render/overlay-output.ts (overlayColourArgs, overlayAlphaArgs) with the first frame as the only key frame.
const VP9 = ["-c:v", "libvpx-vp9", "-pix_fmt", "yuv420p", "-deadline", "realtime", "-cpu-used", "8", "-threads", "1", "-g", "1000000000",
  "-force_key_frames", "expr:eq(n,0)"];
const STREAMS = {
  colour: { ffmpeg: [...VP9, "-crf", "15", "-b:v", "0", "-aq-mode", "0"], lossless: false },
  alpha: { ffmpeg: [...VP9, "-lossless", "1", "-lag-in-frames", "0", "-auto-alt-ref", "0"], lossless: true },
};
type Stream = keyof typeof STREAMS;

interface Measured { frames: number; cpuMs: number; bytes: number }

/**
 * ffmpeg's libvpx-vp9 fed the whole frames through a pipe: its own CPU at the end (ffmpeg -benchmark: user +
 * system) less what it had used before its first frame (/proc, once it waits on the pipe: the process and its
 * libraries, which a render's one ffmpeg pays once for all its outputs). The encoder is opened at the first frame:
 * its set-up stays counted, as the in-process encoder's opening is.
 */
function ffmpegEncoder(stream: Stream, output: string): { write: (frame: Uint8Array) => Promise<void>; finish: () => Promise<Measured> } {
  const args = ["-hide_banner", "-nostats", "-benchmark", "-y", "-f", "rawvideo", "-pix_fmt", "yuv420p", "-s", `${FRAME.width}x${FRAME.height}`, "-r", "30",
    "-i", "pipe:0",
    ...STREAMS[stream].ffmpeg, "-f", "ivf", output];
  const child = spawn("ffmpeg", args, { stdio: ["pipe", "ignore", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
  let frames = 0;
  let startMs = 0;
  return {
    write: async (frame) => {
      if (frames === 0) {
        await setTimeout(500);
        startMs = parseProcStatCpu(await readFile(`/proc/${child.pid}/stat`, "utf8")).selfMs;
      }
      frames++;
      if (!child.stdin.write(Buffer.from(frame))) await new Promise((resolve) => child.stdin.once("drain", resolve));
    },
    finish: async () => {
      child.stdin.end();
      const code = await exited;
      const bench = /bench: utime=([\d.]+)s stime=([\d.]+)s/.exec(stderr);
      if (code !== 0 || !bench) throw new Error(`ffmpeg (${stream}) failed: ${stderr.slice(-500)}`);
      const bytes = (await readFile(output)).length;
      return { frames, cpuMs: (Number(bench[1]) + Number(bench[2])) * 1000 - startMs, bytes };
    },
  };
}

const cpuMs = (): number => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

function open(stream: Stream): Vp9Encoder {
  const opened = openVp9Encoder({ ...FRAME, lossless: STREAMS[stream].lossless });
  if (!opened.encoder) throw new Error(`libvpx cannot be driven here: ${opened.reason}`);
  return opened.encoder;
}

/** The in-process encoders: the CPU of placing the band, its active map and the encode, this process's threads all counted. */
async function inProcess(frames: Iterable<BandFrame>, dir: string): Promise<Record<Stream, Measured>> {
  const measured = { colour: { frames: 0, cpuMs: 0, bytes: 0 }, alpha: { frames: 0, cpuMs: 0, bytes: 0 } };
  // Opening counted, as ffmpeg's is.
  const opened = (stream: Stream) => {
    const started = cpuMs();
    const encoder = open(stream);
    measured[stream].cpuMs += cpuMs() - started;
    return encoder;
  };
  const encoders = { colour: opened("colour"), alpha: opened("alpha") };
  const buffers = blankFrames();
  const packets: Record<Stream, Vp9Packet[]> = { colour: [], alpha: [] };
  let first = true;
  for (const frame of frames) {
    const key = first;
    for (const stream of ["colour", "alpha"] as const) {
      if (!(stream === "colour" ? frame.colourChanged : frame.alphaChanged)) continue;
      const started = cpuMs();
      // The band written into the whole frame, the blocks whose bytes change marked as it goes.
      const cols = (FRAME.width + 15) >> 4;
      const map = new Uint8Array(((FRAME.height + 15) >> 4) * cols);
      const { band } = frame;
      const whole = { x: 0, y: 0, width: band.width, height: band.height };
      if (stream === "colour") updateBandI420(buffers.colour, FRAME, band, { ...band, data: frame.yuv }, whole, map);
      else updatePlane({ frame: buffers.alpha, offset: 0, width: FRAME.width }, band,
        { data: frame.alpha, offset: 0, stride: band.width }, { map, cols, blockSize: 16 });
      packets[stream].push(...(await encoders[stream].encode(buffers[stream], frame.ptsMs, { key, active: key ? undefined : map })));
      measured[stream].cpuMs += cpuMs() - started;
      measured[stream].frames++;
    }
    first = false;
  }
  for (const stream of ["colour", "alpha"] as const) {
    encoders[stream].close();
    const file = path.join(dir, `ours-${stream}.ivf`);
    const writer = await IvfWriter.create(file, { fourcc: "VP90", ...FRAME, timeBase: { num: 1, den: 1000 } });
    for (const packet of packets[stream]) await writer.append(packet);
    await writer.close();
    measured[stream].bytes = (await stat(file)).size;
  }
  return measured;
}

async function main(argv: string[]): Promise<number> {
  const options = { preset: { type: "string", default: "glow" }, seconds: { type: "string", default: "8" }, help: { type: "boolean", short: "h", default: false } } as const;
  const values = parseCommandLine({ args: argv, options, strict: true }, USAGE);
  if (typeof values === "number") return values;
  const preset = values.preset as PresetId;
  const seconds = Number(values.seconds);
  if (!(PRESET_IDS as readonly string[]).includes(preset) || !(seconds > 0)) {
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  const dir = await makeWorkDir();
  try {
    process.stderr.write(`painting ${seconds} s of ${preset} captions at 1080x1920…\n`);
    const frames = [...bandFrames(preset, seconds)];
    process.stderr.write("ffmpeg's libvpx-vp9 on whole frames…\n");
    const ff = { colour: ffmpegEncoder("colour", path.join(dir, "ffmpeg-colour.ivf")), alpha: ffmpegEncoder("alpha", path.join(dir, "ffmpeg-alpha.ivf")) };
    const buffers = blankFrames();
    for (const frame of frames) {
      placeBand(frame, buffers.colour, buffers.alpha);
      if (frame.colourChanged) await ff.colour.write(buffers.colour);
      if (frame.alphaChanged) await ff.alpha.write(buffers.alpha);
    }
    const baseline = { colour: await ff.colour.finish(), alpha: await ff.alpha.finish() };
    process.stderr.write("libvpx in-process with active maps…\n");
    const ours = await inProcess(frames, dir);
    const lines = (["colour", "alpha"] as const).map((stream) => {
      const [b, o] = [baseline[stream], ours[stream]];
      const [bMs, oMs] = [b.cpuMs / b.frames, o.cpuMs / o.frames];
      const ratio = (oMs / bMs).toFixed(2);
      return `${stream.padEnd(6)}  frames ${o.frames}  ffmpeg ${bMs.toFixed(2)} ms/frame  in-process ${oMs.toFixed(2)} ms/frame  ratio ${ratio}  bytes ${b.bytes} vs ${o.bytes}`;
    });
    const total = (m: Record<Stream, Measured>) => m.colour.cpuMs + m.alpha.cpuMs;
    const [before, after] = [total(baseline), total(ours)];
    lines.push(`both    CPU ffmpeg ${before.toFixed(0)} ms, in-process ${after.toFixed(0)} ms, ratio ${(after / before).toFixed(2)}`);
    process.stdout.write(`overlay VP9 encoders, ${preset}, ${seconds} s at 30 fps, 1080x1920, one thread each\n${lines.join("\n")}\n`);
    return 0;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

process.exitCode = await main(process.argv.slice(2));
