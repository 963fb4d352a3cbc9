import assert from "node:assert/strict";
import { test } from "node:test";
import { outputPaths } from "./output-names.ts";

const five = (dir: string, stem: string) => ({
  video: `${dir}/${stem}.captioned.mp4`,
  srt: `${dir}/${stem}.srt`,
  vtt: `${dir}/${stem}.vtt`,
  ass: `${dir}/${stem}.ass`,
  transcript: `${dir}/${stem}.transcript.json`,
});

test("a file's five outputs sit beside it, named after it without its extension", () => {
  assert.deepEqual(outputPaths({ kind: "file", path: "/v/talk.mp4" }, undefined, "/cwd"), five("/v", "talk"));
  assert.deepEqual(outputPaths({ kind: "file", path: "/v/my talk.final.MOV" }, undefined, "/cwd"), five("/v", "my talk.final"));
  assert.deepEqual(outputPaths({ kind: "file", path: "/v/noextension" }, undefined, "/cwd"), five("/v", "noextension"));
  assert.deepEqual(outputPaths({ kind: "file", path: "/v/.mp4" }, undefined, "/cwd"), five("/v", ".mp4"));
});

test("--out puts them in that directory under the same names", () => {
  assert.deepEqual(outputPaths({ kind: "file", path: "/v/talk.webm" }, "/out", "/cwd"), five("/out", "talk"));
});

test("a URL's outputs go to the working directory (or --out), named after its last path segment, made safe", () => {
  const url = (u: string) => ({ kind: "url" as const, url: u });
  assert.deepEqual(outputPaths(url("https://cdn.example.com/media/talk.mp4?sig=abc#t=1"), undefined, "/cwd"), five("/cwd", "talk"));
  assert.deepEqual(outputPaths(url("https://cdn.example.com/media/Caf%C3%A9%20t%C3%A4lk.mp4"), "/out", "/cwd"), five("/out", "Café_tälk"));
  assert.deepEqual(outputPaths(url("https://cdn.example.com/a/..%2F..%2Fetc%2Fpasswd"), undefined, "/cwd"), five("/cwd", "passwd"));
  assert.deepEqual(outputPaths(url("https://cdn.example.com/"), undefined, "/cwd"), five("/cwd", "video"));
  // Undecodable: the raw segment, made safe.
  assert.deepEqual(outputPaths(url("https://cdn.example.com/%E0%A4%A"), undefined, "/cwd"), five("/cwd", "E0_A4_A"));
  assert.deepEqual(outputPaths(url("https://cdn.example.com/.hidden.mp4"), undefined, "/cwd"), five("/cwd", "hidden"));
});
