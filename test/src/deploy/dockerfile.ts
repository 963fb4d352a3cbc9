import { readFileSync } from "node:fs";
import path from "node:path";

export interface Instruction {
  keyword: string;
  /** Flags such as `--from=build`, by name. */
  flags: Record<string, string>;
  /** The remaining words, or the JSON array of the exec form. */
  args: string[];
  line: number;
}

/** Enough of the Dockerfile grammar for checks: comments, line continuations, flags, exec and shell forms. */
export function parseDockerfile(text: string): Instruction[] {
  const instructions: Instruction[] = [];
  let pending = "";
  let startLine = 0;
  text.split("\n").forEach((raw, index) => {
    const line = raw.trimEnd();
    if (pending === "" && (line.trim() === "" || line.trimStart().startsWith("#"))) return;
    if (pending !== "" && line.trimStart().startsWith("#")) return;
    if (pending === "") startLine = index + 1;
    if (line.endsWith("\\")) {
      pending += `${line.slice(0, -1)} `;
      return;
    }
    const whole = (pending + line).trim();
    pending = "";
    const keyword = whole.split(/\s+/, 1)[0] ?? "";
    let body = whole.slice(keyword.length).trim();
    const flags: Record<string, string> = {};
    for (let flag = /^--([a-z-]+)(?:=(\S+))?\s*/.exec(body); flag; flag = /^--([a-z-]+)(?:=(\S+))?\s*/.exec(body)) {
      flags[flag[1] ?? ""] = flag[2] ?? "";
      body = body.slice(flag[0].length);
    }
    const args = body.startsWith("[") ? (JSON.parse(body) as string[]) : body.split(/\s+/).filter((w) => w !== "");
    instructions.push({ keyword: keyword.toUpperCase(), flags, args, line: startLine });
  });
  return instructions;
}

export const readDockerfile = (file: string) => parseDockerfile(readFileSync(file, "utf8"));

/** `KEY=value KEY2=value2` pairs of ENV instructions. */
export function envOf(instructions: Instruction[]): Map<string, string> {
  const env = new Map<string, string>();
  for (const i of instructions.filter((i) => i.keyword === "ENV")) {
    for (const pair of i.args) {
      const eq = pair.indexOf("=");
      if (eq > 0) env.set(pair.slice(0, eq), pair.slice(eq + 1));
    }
  }
  return env;
}

/** Whether `.dockerignore` keeps `file` (relative to the context) out of the build context. */
export function isIgnored(dockerignore: string, file: string): boolean {
  const rules = dockerignore
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "" && !l.startsWith("#"))
    .map((l) => ({ negate: l.startsWith("!"), pattern: l.replace(/^!/, "").replace(/^\/+|\/+$/g, "") }));
  const segments = path.posix.normalize(file).split("/");
  const prefixes = segments.map((_, i) => segments.slice(0, i + 1).join("/"));
  let ignored = false;
  for (const rule of rules) {
    // A rule matches the path itself or any folder above it (an ignored folder takes its contents along).
    if (prefixes.some((p) => path.posix.matchesGlob(p, rule.pattern))) ignored = !rule.negate;
  }
  return ignored;
}
