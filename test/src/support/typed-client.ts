import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import openapiTS, { astToString } from "openapi-typescript";
import { REPO_ROOT } from "../fixtures/repo-paths.ts";

/**
 * The README's typed client: openapi-fetch over types that openapi-typescript generates from the
 * served OpenAPI document. It submits a video, polls until the job ends and prints the job as JSON.
 */
const CLIENT_SOURCE = `import createClient from "openapi-fetch";
import type { paths } from "./schema.d.ts";

const api = createClient<paths>({ baseUrl: process.env.API_URL, headers: { Authorization: \`Bearer \${process.env.API_KEY}\` } });
const { data: created, error } = await api.POST("/v1/subtitles", { body: { video_url: process.env.VIDEO_URL ?? "", preset: "karaoke", subtitles: { profile: "vertical" }, profanity: "mask" } });
if (!created) throw new Error(error?.error.message);
let job = (await api.GET("/v1/jobs/{id}", { params: { path: { id: created.id } } })).data;
while (job && !["completed", "failed", "canceled"].includes(job.status)) {
  await new Promise((resolve) => setTimeout(resolve, Number(process.env.POLL_MS ?? 5000)));
  job = (await api.GET("/v1/jobs/{id}", { params: { path: { id: created.id } } })).data;
}
console.log(JSON.stringify({ id: job?.id, status: job?.status, video: job?.video?.url, srt: job?.subtitles.srt_url, quality: job?.quality?.profile, report: job?.subtitles.quality_url }));
`;

// Every declaration file is checked (the generated schema.d.ts above all) except TypeScript's own lib files
// (skipDefaultLibCheck): the DOM's alone is most of tsc's work, and checking it proves nothing about the client.
const TSCONFIG = {
  compilerOptions: {
    target: "es2024", lib: ["es2024", "dom"], module: "nodenext", moduleResolution: "nodenext", types: ["node"], strict: true,
    noUncheckedIndexedAccess: true, allowImportingTsExtensions: true, verbatimModuleSyntax: true, noEmit: true, skipLibCheck: false, skipDefaultLibCheck: true,
    typeRoots: [path.join(REPO_ROOT, "node_modules/@types")],
  },
  files: ["client.ts"],
};

/** Writes schema.d.ts (generated from `document`), client.ts and a strict tsconfig.json into `dir`. */
export async function writeTypedClient(dir: string, document: unknown): Promise<void> {
  await mkdir(dir, { recursive: true });
  const schema = astToString(await openapiTS(document as never));
  await writeFile(path.join(dir, "schema.d.ts"), schema);
  await writeFile(path.join(dir, "client.ts"), CLIENT_SOURCE);
  await writeFile(path.join(dir, "tsconfig.json"), JSON.stringify(TSCONFIG, null, 2));
}
