import { after, describe, test } from "node:test";
import fc from "fast-check";
import { isErrorShape } from "../testing/error-shape.ts";
import { operationsOf, requestsFor, type FuzzRequest, type OpenApiOperation, type RequestContext } from "../testing/openapi-requests.ts";
import { startPopulatedApi } from "../testing/populated-api.ts";
import { jsonOf, rawRequest } from "../testing/raw-http.ts";

// Property-based fuzzing of the API from the OpenAPI document it serves: for every operation, a few hundred
// requests, valid and broken (path and query parameters, headers, bodies). Whatever comes, the answer is no
// 5xx (a 503 with Retry-After aside), every 4xx is in the error shape, and it comes within 10 s.
// A failure prints the seed and the smallest failing request: FUZZ_SEED=<seed> replays it (docs/development.md);
// a request that once failed is kept as a test of its own in fuzz-regressions.test.ts.

const SEED = Number(process.env.FUZZ_SEED ?? 39_2026);
const RUNS = Number(process.env.FUZZ_RUNS ?? 150);
/** One operation alone ("POST /v1/subtitles"), to replay its failure. */
const ONLY = process.env.FUZZ_ONLY;
const ANSWER_WITHIN_MS = 10_000;
/** Steps of shrinking a failure: each is a request; enough to strip a failing request of what does not matter. */
const MAX_SHRINKS = 200;

const api = await startPopulatedApi();
const started = { cpu: process.cpuUsage(), at: performance.now() };
after(async () => {
  const cpu = process.cpuUsage(started.cpu);
  console.log(`API fuzz: ${((performance.now() - started.at) / 1000).toFixed(1)} s, ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s of CPU in the test's process (client and API)`);
  await api.t.close();
});
const document = (await api.t.request("GET", "/v1/openapi.json")).body;
const context: RequestContext = {
  components: document.components.schemas,
  loopbackOrigin: api.loopbackOrigin,
  idsByPattern: api.idsByPattern,
  key: api.key,
  validQuery: (path) => (path.startsWith("/v1/files/") ? api.signedQueries.file : path.startsWith("/v1/uploads/") ? api.signedQueries.upload : undefined),
};
console.log(`API fuzz: seed ${SEED}, ${RUNS} requests per operation (FUZZ_SEED and FUZZ_RUNS change them)`);

/** A generated URL naming another host would be a bug of the generator: nothing may leave the loopback host. */
function elsewhere(request: FuzzRequest): string | undefined {
  const text = `${request.body ?? ""} ${Object.values(request.headers).join(" ")}`;
  const loopback = new URL(api.loopbackOrigin).host;
  // indexOf, not a regular expression: bodies run to 100 000 characters.
  for (let at = text.indexOf("://"); at >= 0; at = text.indexOf("://", at + 3)) {
    const authority = /^[^/\s"?#\\]*/.exec(text.slice(at + 3, at + 300))![0];
    if (authority.toLowerCase() !== loopback) return text.slice(Math.max(0, at - 8), at + 3 + authority.length);
  }
  return undefined;
}

/** What is wrong with the answer to a request, or undefined when nothing is. */
async function problemOf(request: FuzzRequest): Promise<string | undefined> {
  const url = elsewhere(request);
  if (url) return `the request names a host other than the test's own: ${url}`;
  const body = request.body === undefined ? undefined : Buffer.from(request.body, request.encoding ?? "utf8");
  let res;
  try {
    res = await rawRequest(api.t.url, { method: request.method, path: request.path, headers: request.headers, body }, ANSWER_WITHIN_MS);
  } catch (error) {
    return `no answer: ${(error as Error).message}`;
  }
  const answer = `answered ${res.status} ${JSON.stringify(res.headers)} ${res.text.slice(0, 400)}`;
  if (res.status >= 500 && !(res.status === 503 && res.headers["retry-after"])) return answer;
  if (res.status >= 400 && request.method !== "HEAD" && !isErrorShape(jsonOf(res.text))) return `${answer} (a 4xx outside the error shape)`;
  return undefined;
}

function fuzz(operation: OpenApiOperation) {
  test(`${operation.method} ${operation.path}`, async () => {
    const property = fc.asyncProperty(fc.limitShrink(requestsFor(operation, context), MAX_SHRINKS), async (request) => {
      const problem = await problemOf(request);
      if (problem) throw new Error(`${request.method} ${request.path} ${problem}`);
    });
    const details = await fc.check(property, { seed: SEED, numRuns: RUNS });
    if (details.failed) {
      const replay = `FUZZ_SEED=${SEED} FUZZ_RUNS=${RUNS} FUZZ_ONLY='${operation.method} ${operation.path}' npm run test:only -- control-plane/src/http/api-fuzz.test.ts`;
      throw new Error(`${fc.defaultReportMessage(details)}\n\n${String(details.errorInstance)}\n\nReplay: ${replay}`);
    }
  });
}

const operations = operationsOf(document).filter((operation) => !ONLY || `${operation.method} ${operation.path}` === ONLY);
// Two at a time: requests of one operation wait on the database while another's are parsed. Deleting ones last, alone.
describe("every operation of the OpenAPI document, fuzzed", { concurrency: 2 }, () => {
  for (const operation of operations.filter((one) => one.method !== "DELETE")) fuzz(operation);
});
describe("every deleting operation, fuzzed once the others are done", () => {
  for (const operation of operations.filter((one) => one.method === "DELETE")) fuzz(operation);
});
