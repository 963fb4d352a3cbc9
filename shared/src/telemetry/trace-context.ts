import { context, propagation, trace, TraceFlags } from "@opentelemetry/api";

/**
 * The W3C trace context of the active span, to hand to work done elsewhere (a job's worker attempt), or
 * undefined when this span is not sampled: an unsampled parent would make the receiver drop its spans too,
 * while without one it samples by its own settings (a worker may export traces when the API does not).
 */
export function sampledTraceparent(): string | undefined {
  const span = trace.getSpan(context.active());
  if (!span || (span.spanContext().traceFlags & TraceFlags.SAMPLED) === 0) return undefined;
  const carrier: { traceparent?: string } = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent;
}
