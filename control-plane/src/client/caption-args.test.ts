import assert from "node:assert/strict";
import { test } from "node:test";
import { CAPTION_USAGE, parseCaptionArgs } from "./caption-args.ts";

const CWD = "/home/ana/videos";

test("a file operand is resolved from the caller's directory; every option lands where it belongs", (t) => {
  t.mock.method(process.stderr, "write", () => true);
  assert.deepEqual(parseCaptionArgs(["./talk.mp4"], CWD), { input: { kind: "file", path: "/home/ana/videos/talk.mp4" }, json: false, newKey: false });
  assert.deepEqual(
    parseCaptionArgs(["../talk.mov", "--preset", "highlight", "--style", '{"text_color":"#FFEE00","offset":{"top":4}}', "--language", "en", "--out", "out", "--json"], CWD),
    {
      input: { kind: "file", path: "/home/ana/talk.mov" },
      preset: "highlight",
      style: { text_color: "#FFEE00", offset: { top: 4 } },
      language: "en",
      outDir: "/home/ana/videos/out",
      json: true,
      newKey: false,
    },
  );
  assert.deepEqual(parseCaptionArgs(["--out=/tmp/o", "/abs/clip.webm"], CWD), { input: { kind: "file", path: "/abs/clip.webm" }, outDir: "/tmp/o", json: false, newKey: false });
  assert.deepEqual(parseCaptionArgs(["clip.webm", "--new-key"], CWD), { input: { kind: "file", path: "/home/ana/videos/clip.webm" }, json: false, newKey: true });
});

test("an https URL goes to the service as it is; other schemes are refused before any request", (t) => {
  const stderr = t.mock.method(process.stderr, "write", () => true);
  assert.deepEqual(parseCaptionArgs(["https://cdn.example.com/a/talk.mp4?sig=1"], CWD), { input: { kind: "url", url: "https://cdn.example.com/a/talk.mp4?sig=1" }, json: false, newKey: false });
  assert.deepEqual(parseCaptionArgs(["HTTPS://EXAMPLE.COM/x.mp4"], CWD), { input: { kind: "url", url: "HTTPS://EXAMPLE.COM/x.mp4" }, json: false, newKey: false });
  for (const url of ["http://example.com/talk.mp4", "ftp://example.com/talk.mp4", "file:///tmp/talk.mp4"]) {
    assert.equal(parseCaptionArgs([url], CWD), 2, url);
    assert.match(String(stderr.mock.calls.at(-1)?.arguments[0]), /only https:\/\/ URLs can be downloaded by the service/);
  }
});

test("usage errors print the reason and the usage on stderr and yield 2; --help yields 0", (t) => {
  const stderr = t.mock.method(process.stderr, "write", () => true);
  const stdout = t.mock.method(process.stdout, "write", () => true);
  const cases: [string[], RegExp][] = [
    [[], /a video file or URL is required/],
    [["a.mp4", "b.mp4"], /one video at a time/],
    [[""], /a video file or URL is required/],
    [["a.mp4", "--preset", "neon"], /--preset neon is not a preset; one of classic, highlight/],
    [["a.mp4", "--style", "[1]"], /--style must be a JSON object/],
    [["a.mp4", "--style", "{text_color:1}"], /--style must be a JSON object/],
    [["a.mp4", "--style", "null"], /--style must be a JSON object/],
    [["a.mp4", "--language", "EN"], /--language EN: two or three lowercase letters/],
    [["a.mp4", "--language", "engl"], /--language engl/],
    [["a.mp4", "--color", "red"], /Unknown option '--color'/],
    [["a.mp4", "--json=yes"], /--json/],
    [["a.mp4", "--preset"], /--preset/],
  ];
  for (const [args, message] of cases) {
    assert.equal(parseCaptionArgs(args, CWD), 2, args.join(" "));
    const written = String(stderr.mock.calls.at(-1)?.arguments[0]);
    assert.match(written, message, args.join(" "));
    assert.ok(written.endsWith(`${CAPTION_USAGE}\n`), args.join(" "));
  }
  assert.equal(parseCaptionArgs(["--help"], CWD), 0);
  assert.equal(String(stdout.mock.calls.at(-1)?.arguments[0]), `${CAPTION_USAGE}\n`);
});

test("the style is passed on as written: its rules are the API's to judge (an INVALID_REQUEST comes back from it)", (t) => {
  t.mock.method(process.stderr, "write", () => true);
  const parsed = parseCaptionArgs(["a.mp4", "--style", '{"text_color":"red","bogus":true}'], CWD);
  assert.notEqual(typeof parsed, "number");
  assert.deepEqual(typeof parsed === "number" ? null : parsed.style, { text_color: "red", bogus: true });
});
