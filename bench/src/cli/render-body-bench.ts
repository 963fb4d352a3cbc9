// `npm run bench:render-body [-- --words 20000 --seconds 600]`: what a render request's body weighs with
// the most words the API accepts, of real text in several scripts, sent plain, with every non-ASCII
// character escaped, and escaped and indented; and how the render body limit compares with the heaviest.
// A measure, not a test: request-bodies.test.ts holds the limit to at least 1.25 × the heaviest.
import { MAX_EDITED_WORDS, MAX_RENDER_BODY_BYTES } from "@caption/shared/api/render-request";
import { parseCommandLine } from "@caption/shared/runtime/command-line";
import { measureRenderBodies } from "@caption/control-plane/testing";

const USAGE = `usage: render-body-bench [--words N] [--seconds S]
  --words N     words in the body (default ${MAX_EDITED_WORDS}, the most a render request may carry)
  --seconds S   the video's length the words spread over (default 600, the longest video)`;

const mib = (bytes: number) => (bytes / 1024 / 1024).toFixed(2);

function main(argv: string[]): number {
  const options = { words: { type: "string", default: String(MAX_EDITED_WORDS) }, seconds: { type: "string", default: "600" }, help: { type: "boolean", short: "h", default: false } } as const;
  const values = parseCommandLine({ args: argv, options, strict: true }, USAGE);
  if (typeof values === "number") return values;
  const words = Number(values.words);
  const seconds = Number(values.seconds);
  if (!Number.isInteger(words) || words < 1 || !(seconds > 0)) {
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  const sizes = measureRenderBodies(words, seconds);
  process.stdout.write(`| language | format | bytes | MiB | bytes a word |\n|---|---|---:|---:|---:|\n`);
  for (const size of sizes) {
    process.stdout.write(`| ${size.language} | ${size.format} | ${size.bytes} | ${mib(size.bytes)} | ${(size.bytes / words).toFixed(1)} |\n`);
  }
  const heaviest = sizes[0];
  if (!heaviest) return 1;
  process.stdout.write(
    `\nheaviest: ${heaviest.language}, ${heaviest.format}: ${heaviest.bytes} bytes (${mib(heaviest.bytes)} MiB)\n` +
      `render body limit: ${MAX_RENDER_BODY_BYTES} bytes (${mib(MAX_RENDER_BODY_BYTES)} MiB) = ${(MAX_RENDER_BODY_BYTES / heaviest.bytes).toFixed(2)} × the heaviest\n`,
  );
  return 0;
}

process.exitCode = main(process.argv.slice(2));
