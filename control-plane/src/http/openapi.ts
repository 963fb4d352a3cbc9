import type { TSchema } from "@sinclair/typebox";
import { bearer, COMPONENT, encodedBody, json, keyRefusals, needs, plain } from "./openapi-parts.ts";
import { webhooks } from "./openapi-webhooks.ts";
import { assertParamsDeclared, type PathParam, type RouteSpec } from "./route-spec.ts";

const TAGS = [
  { name: "Presets", description: "The caption style presets" },
  { name: "Jobs", description: "Submit, follow and cancel captioning jobs" },
  { name: "Uploads", description: "Send a file on your own disk (tus 1.0 or one PUT), then submit its upload_id" },
  { name: "Previews", description: "A look drawn at once, before any job: no charge" },
  { name: "Files", description: "Result downloads behind signed links" },
  { name: "Usage", description: "Prepaid seconds and limits" },
  { name: "Webhooks", description: "Account-level endpoints that receive signed job events (Standard Webhooks)" },
];
const IDEMPOTENCY_KEY = { name: "Idempotency-Key", in: "header", required: false, description: "1–255 visible ASCII characters; remembered 24 h per account", schema: { type: "string", maxLength: 255 } };

/** OpenAPI 3.1 description generated from the route list the server is built from and the schemas it validates with. */
export function buildOpenApiDocument(serverUrl: string, routes: readonly RouteSpec[]) {
  const paths: Record<string, Record<string, object>> = {};
  for (const route of routes) {
    if (!route.doc) continue;
    (paths[route.path] ??= {})[route.method] = operation(route, route.doc);
  }
  const document = {
    openapi: "3.1.0",
    info: {
      title: "Video Captioning Service",
      version: "1.0.0",
      description: "Transcribes speech on-device and burns animated word-by-word captions into a video. Jobs are asynchronous: poll a job, stream its events, or register a webhook endpoint.",
      contact: { name: "Caption service operators", url: `${serverUrl}/docs` },
      license: { name: "MIT", identifier: "MIT" },
    },
    servers: [{ url: serverUrl, description: "This service" }],
    tags: TAGS,
    components: {
      securitySchemes: { bearerAuth: { type: "http", scheme: "bearer", description: "API key: Authorization: Bearer <API_KEY>. Scopes: subtitles:write (submit, cancel, manage webhooks; implies read), subtitles:read (jobs, usage, webhook listings)." } },
      schemas: {} as Record<string, unknown>,
    },
    paths,
    webhooks: webhooks(),
  };
  document.components.schemas = componentsOf(document);
  return JSON.parse(JSON.stringify(document)) as typeof document;
}

/** One route's operation; a route whose declaration contradicts itself throws instead of publishing a wrong document. */
function operation(route: RouteSpec, doc: NonNullable<RouteSpec["doc"]>): object {
  const where = `${route.method.toUpperCase()} ${route.path}`;
  assertParamsDeclared(route);
  if (!doc.tags.every((tag) => TAGS.some((known) => known.name === tag))) throw new Error(`${where}: unknown tag`);
  const required = (status: string, why: string) => {
    if (!route.responses[status]) throw new Error(`${where}: ${why} but no ${status} response is declared`);
  };
  if (route.auth !== "none" && route.responses["401"]) throw new Error(`${where}: its 401 follows from its scope; declare none`);
  if (route.body) required("400", "it takes a body");
  if (route.body?.tooLargeIs413) required("413", "a body over its limit is 413");
  const parameters = [
    ...Object.entries(route.params ?? {}).map(([name, param]) => pathParameter(name, param)),
    ...queryParameters(route.query?.schema),
    ...(route.idempotent ? [IDEMPOTENCY_KEY] : []),
    ...Object.entries(route.headers ?? {}).map(([name, description]) => ({ name, in: "header", required: false, description, schema: { type: "string" } })),
  ];
  return {
    operationId: doc.operationId,
    tags: doc.tags,
    summary: doc.summary,
    description: route.auth === "none" ? doc.description : `${doc.description} ${needs(route.auth.scope)}`,
    ...(route.auth === "none" ? { security: [] } : bearer(route.auth.scope)),
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(route.body ? { requestBody: { required: true, ...json(route.body.documentAs ?? route.body.schema) } } : {}),
    // A keyed route's 401 follows from its scope; every JSON body is read as sent (json-body.ts): an encoded one is 415.
    // (Status keys are integer-like: an object lists them in numeric order whatever the spread's.)
    responses: { ...(route.auth === "none" ? {} : keyRefusals(route.auth.scope)), ...route.responses, ...(route.body ? encodedBody : {}) },
  };
}

/** The parameter's description comes from its schema's; a value that does not match is the route's 404. */
function pathParameter(name: string, param: PathParam): object {
  const { description, ...schema } = plain(param.schema);
  return { name, in: "path", required: true, description: [description, "A value of another shape is 404 NOT_FOUND."].filter(Boolean).join(" "), schema };
}

function queryParameters(schema: TSchema | undefined): object[] {
  if (!schema) return [];
  const properties = schema.properties as Record<string, TSchema>;
  return Object.entries(properties).map(([name, property]) => {
    const { description, ...rest } = plain(property);
    return { name, in: "query", required: (schema.required as string[] | undefined)?.includes(name) ?? false, description, schema: rest };
  });
}

/** Every schema a reference in the document names (openapi-parts.ts `ref`), under its `$id`. */
function componentsOf(document: object): Record<string, unknown> {
  const found = new Map<string, TSchema>();
  const visit = (value: unknown): void => {
    if (!value || typeof value !== "object") return;
    const schema = (value as { [COMPONENT]?: TSchema })[COMPONENT];
    if (schema) found.set(schema.$id!, schema);
    Object.values(value).forEach(visit);
  };
  visit(document);
  return Object.fromEntries([...found].sort(([a], [b]) => a.localeCompare(b)).map(([name, schema]) => [name, plain(schema)]));
}
