import assert from "node:assert/strict";
import { after, test } from "node:test";
import { context, propagation, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { AlwaysOffSampler, AlwaysOnSampler, TracerProvider } from "@opentelemetry/sdk-trace";
import { sampledTraceparent } from "./trace-context.ts";

context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
propagation.setGlobalPropagator(new W3CTraceContextPropagator());
after(() => {
  context.disable();
  propagation.disable();
});

const inSpan = <T>(sampler: AlwaysOnSampler | AlwaysOffSampler, work: () => T): T =>
  new TracerProvider({ sampler }).getTracer("test").startActiveSpan("request", (span) => {
    try {
      return work();
    } finally {
      span.end();
    }
  });

test("a sampled span hands on its trace context", () => {
  const traceparent = inSpan(new AlwaysOnSampler(), () => sampledTraceparent());
  assert.match(traceparent ?? "", /^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
});

test("an unsampled span hands on nothing, so the receiver samples by its own settings", () => {
  assert.equal(inSpan(new AlwaysOffSampler(), () => sampledTraceparent()), undefined);
  assert.equal(trace.getActiveSpan(), undefined);
  assert.equal(sampledTraceparent(), undefined);
});
