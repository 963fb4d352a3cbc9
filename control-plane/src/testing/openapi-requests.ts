import fc from "fast-check";
import { brokenValue, hostileString, validValue, type JsonSchema, type SchemaContext } from "./schema-arbitrary.ts";

// Requests for every operation of an OpenAPI document, valid and broken: path and query parameters,
// headers and bodies, each drawn from its schema or from what a hostile client sends instead.

/** One request as the fuzz test sends it (and prints it, to replay). */
export interface FuzzRequest {
  method: string;
  /** Path and query, percent-encoded as written on the request line. */
  path: string;
  headers: Record<string, string>;
  body?: string;
  /** How the body's characters become bytes: latin1 for bytes that need be no UTF-8. */
  encoding?: "utf8" | "latin1";
}

export interface OpenApiOperation {
  method: string;
  path: string;
  parameters: { name: string; in: "path" | "query" | "header"; schema: JsonSchema }[];
  bodySchema: JsonSchema | undefined;
}

export interface RequestContext extends SchemaContext {
  key: string;
  /** A valid (signed) query string for an operation's path, when it needs one. */
  validQuery(path: string): string | undefined;
}

/** Every operation of the document; those that delete come last, so that what they delete is there for the others first. */
export function operationsOf(document: { paths: Record<string, Record<string, any>> }): OpenApiOperation[] {
  const operations = Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) => ({
      method: method.toUpperCase(),
      path,
      parameters: operation.parameters ?? [],
      bodySchema: operation.requestBody?.content?.["application/json"]?.schema,
    })),
  );
  return operations.sort((a, b) => Number(a.method === "DELETE") - Number(b.method === "DELETE"));
}

/** Percent-encodes every byte but the unreserved ones; a lone surrogate as the three bytes UTF-8 would give it (which are no UTF-8). */
export function percentEncode(text: string): string {
  if (text.isWellFormed()) return encodeURIComponent(text).replace(/[!'()*]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`);
  let encoded = "";
  for (const char of text) {
    const unit = char.charCodeAt(0);
    if (char.length === 1 && unit >= 0xd800 && unit <= 0xdfff) encoded += [0xe0 | (unit >> 12), 0x80 | ((unit >> 6) & 63), 0x80 | (unit & 63)].map((byte) => `%${byte.toString(16).toUpperCase()}`).join("");
    else encoded += percentEncode(char);
  }
  return encoded;
}

/** A header value a client can send: characters outside latin-1 as their UTF-8 bytes, controls but tab left out. */
const headerSafe = (text: string) => Buffer.from(text, "utf8").toString("latin1").replace(/[\u0000-\u0008\u000a-\u001f\u007f]/g, "");
const latin1Char = fc.integer({ min: 0x20, max: 0xff }).filter((code) => code !== 0x7f).map((code) => String.fromCharCode(code));
const latin1Text = fc.string({ unit: latin1Char, maxLength: 40 });
const headerText = fc.oneof({ weight: 3, arbitrary: latin1Text }, { weight: 1, arbitrary: hostileString.map(headerSafe) });
const rawBytes = fc.uint8Array({ maxLength: 40 }).map((bytes) => Buffer.from(bytes).toString("latin1"));
const STRANGE_SEGMENTS = ["..", ".", "%2e%2e", "%2F", "a%2Fb", "%", "%zz", "%C0%80", "%25", "%FF", "%00", "%ED%A0%80", "9".repeat(9000)];

function segment(schema: JsonSchema, context: SchemaContext): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 6, arbitrary: validValue(schema, context).map((value) => percentEncode(String(value))) },
    { weight: 2, arbitrary: hostileString.map(percentEncode) },
    { weight: 1, arbitrary: rawBytes.map((bytes) => [...Buffer.from(bytes, "latin1")].map((byte) => `%${byte.toString(16).padStart(2, "0")}`).join("")) },
    { weight: 1, arbitrary: fc.constantFrom(...STRANGE_SEGMENTS) },
  );
}

function queryOf(operation: OpenApiOperation, context: RequestContext): fc.Arbitrary<string> {
  const declared = operation.parameters.filter((parameter) => parameter.in === "query");
  const pair = (name: string, value: fc.Arbitrary<string>) => value.map((text) => `${percentEncode(name)}=${percentEncode(text)}`);
  const value = (schema: JsonSchema) => fc.oneof({ weight: 2, arbitrary: validValue(schema, context).map(String) }, { weight: 1, arbitrary: hostileString });
  const generated = fc
    .tuple(...declared.map((parameter) => fc.option(pair(parameter.name, value(parameter.schema)), { freq: 4, nil: undefined })), fc.array(pair("x", hostileString), { maxLength: 2 }))
    .map(([...parts]) => parts.flat().filter((part): part is string => part !== undefined).join("&"));
  const junk = fc.oneof(fc.constantFrom("", "&&", "=", "a", "a=1&a=2", "%", "%zz=1", "a[b]=1", "__proto__[x]=1"), rawBytes.map(percentEncode));
  const valid = context.validQuery(operation.path);
  const choices = [{ weight: 3, arbitrary: generated }, { weight: 1, arbitrary: junk }];
  return valid === undefined ? fc.oneof(...choices) : fc.oneof({ weight: 4, arbitrary: fc.constant(valid) }, ...choices);
}

function headersOf(operation: OpenApiOperation, context: RequestContext): fc.Arbitrary<Record<string, string>> {
  const option = <T>(value: fc.Arbitrary<T>) => fc.option(value, { nil: undefined, freq: 3 });
  const declared = operation.parameters.filter((parameter) => parameter.in === "header");
  const oneOf = (...values: string[]) => fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...values) }, { weight: 1, arbitrary: headerText });
  const model: Record<string, fc.Arbitrary<string | undefined>> = {
    authorization: fc.oneof({ weight: 8, arbitrary: fc.constant(`Bearer ${context.key}`) }, { weight: 1, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: headerText.map((text) => `Bearer ${text}`) }),
    "content-type": option(oneOf("application/json", "application/json; charset=utf-8", "text/plain", "application/offset+octet-stream", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "application/json; charset=latin1")),
    "content-encoding": option(oneOf("gzip", "deflate", "br", "identity", "x-unknown")),
    "tus-resumable": option(oneOf("1.0.0", "0.2.2", "")),
    "upload-offset": option(oneOf("0", "1", "-1", "16", "99999999999999999999", "1.5")),
    "upload-length": option(oneOf("0", "16", "-1", "99999999999999999999")),
    range: option(oneOf("bytes=0-0", "bytes=5-1", "bytes=-1", "bytes=0-0,2-3", "bytes=999999999999-", "items=0-1")),
    "x-request-id": option(headerText),
    "last-event-id": option(oneOf("0", "1", "-1", "99999999999999999999", "1e3")),
    ...Object.fromEntries(
      declared.map((parameter) => {
        const valid = validValue(parameter.schema, context).map((value) => headerSafe(String(value)));
        return [parameter.name.toLowerCase(), option(fc.oneof(valid, headerText))];
      }),
    ),
  };
  return fc.record(model).map((headers) => Object.fromEntries(Object.entries(headers).filter((entry): entry is [string, string] => entry[1] !== undefined)));
}

function bodyOf(operation: OpenApiOperation, context: RequestContext): fc.Arbitrary<{ body?: string; encoding?: "utf8" | "latin1" }> {
  const junk = fc.oneof(
    fc.constantFrom("{", "[1,2", "\ufeff{}", "null", '{"a":1}{}', '{"a":"\\ud800"}', '{"a":1,"a":2}', "0".repeat(100_000)).map((body) => ({ body })),
    fc.integer({ min: 1_000, max: 100_000 }).map((depth) => ({ body: `${"[".repeat(depth)}${"]".repeat(depth)}` })),
    fc.integer({ min: 1_000, max: 100_000 }).map((length) => ({ body: `[${"0,".repeat(length)}0]` })),
    rawBytes.map((body) => ({ body, encoding: "latin1" as const })),
  );
  const none = fc.constant({});
  if (operation.bodySchema) {
    const valid = validValue(operation.bodySchema, context);
    return fc.oneof(
      { weight: 3, arbitrary: valid.map((value) => ({ body: JSON.stringify(value) })) },
      { weight: 4, arbitrary: brokenValue(valid).map((value) => ({ body: JSON.stringify(value) ?? "" })) },
      { weight: 1, arbitrary: junk },
    );
  }
  // tus PATCH and PUT take bytes.
  if (operation.method === "PATCH" || operation.method === "PUT") return fc.oneof(none, rawBytes.map((body) => ({ body, encoding: "latin1" as const })), junk);
  return fc.oneof({ weight: 6, arbitrary: none }, { weight: 1, arbitrary: junk });
}

const OTHER_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "PROPFIND", "FOO"];

/** Requests for one operation: mostly its own method, with its parameters, headers and body valid or broken. */
export function requestsFor(operation: OpenApiOperation, context: RequestContext): fc.Arbitrary<FuzzRequest> {
  const params = operation.parameters.filter((parameter) => parameter.in === "path");
  const path = fc.tuple(...params.map((parameter) => segment(parameter.schema, context))).map((values) => {
    let filled = operation.path;
    params.forEach((parameter, i) => (filled = filled.replace(`{${parameter.name}}`, values[i]!)));
    return filled;
  });
  const method = fc.oneof({ weight: 12, arbitrary: fc.constant(operation.method) }, { weight: 1, arbitrary: fc.constantFrom(...OTHER_METHODS) });
  const parts = { method, path, query: queryOf(operation, context), headers: headersOf(operation, context), body: bodyOf(operation, context) };
  return fc.record(parts).map(({ method, path, query, headers, body }) => {
    const request: FuzzRequest = { method, path: query ? `${path}?${query}` : path, headers: { ...headers } };
    if (body.body !== undefined) {
      request.headers["content-type"] ??= operation.bodySchema ? "application/json" : "application/offset+octet-stream";
      request.body = body.body;
      if (body.encoding === "latin1") request.encoding = "latin1";
    }
    return request;
  });
}
