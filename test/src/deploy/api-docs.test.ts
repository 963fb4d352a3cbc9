import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { API_ERROR_CODES, JOB_ERROR_CODES } from "@caption/shared/errors/codes";
import { REPO_ROOT } from "../fixtures/repo-paths.ts";

const API_DOC = readFileSync(path.join(REPO_ROOT, "docs/api.md"), "utf8");
/** The rows of a Markdown table whose first cells name codes in backticks. */
const documented = (text: string) => new Set([...text.matchAll(/^\|[^|\n]*\|\s*`([A-Z_]+)`\s*\|/gm), ...text.matchAll(/^\|\s*`([A-Z_]+)`\s*\|/gm)].map((m) => m[1]));

test("docs/api.md has a row for every error code the API answers with", () => {
  const rows = documented(API_DOC.slice(API_DOC.indexOf("HTTP errors:"), API_DOC.indexOf("Job failures")));
  assert.deepEqual(API_ERROR_CODES.filter((code) => !rows.has(code)), []);
});

test("docs/api.md has a row for every code a failed job can carry", () => {
  const rows = documented(API_DOC.slice(API_DOC.indexOf("Job failures")));
  assert.deepEqual(JOB_ERROR_CODES.filter((code) => !rows.has(code)), []);
});
