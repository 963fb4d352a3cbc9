import { context, metrics, propagation, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from "@opentelemetry/core";
import { OTLPMetricExporter } from "@opentelemetry/exporter-metrics-otlp-http";
import { PrometheusExporter, PrometheusSerializer } from "@opentelemetry/exporter-prometheus";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { registerInstrumentations } from "@opentelemetry/instrumentation";
import { detectResources, hostDetector, resourceAttributesEnvDetector, resourceFromAttributes, serviceNameEnvDetector } from "@opentelemetry/resources";
import { MeterProvider, PeriodicExportingMetricReader, type IMetricReader } from "@opentelemetry/sdk-metrics";
import { AlwaysOffSampler, BatchSpanProcessor, ParentBasedSampler, AlwaysOnSampler, TracerProvider, type Sampler, type SpanProcessor } from "@opentelemetry/sdk-trace";
import { ATTR_SERVICE_NAME } from "@opentelemetry/semantic-conventions";
import { autoInstrumentations } from "./auto-instrumentations.ts";

export interface TelemetryOptions {
  /** `service.name` unless OTEL_SERVICE_NAME or OTEL_RESOURCE_ATTRIBUTES name one. */
  serviceName: string;
  /** Export traces and metrics over OTLP/HTTP; the exporters read the standard OTEL_EXPORTER_OTLP_* variables. */
  otlp: boolean;
  metricExportIntervalMs?: number;
  sampler?: Sampler;
  /** Added to the OTLP ones (tests pass in-memory exporters here). */
  spanProcessors?: SpanProcessor[];
  metricReaders?: IMetricReader[];
}

export interface Telemetry {
  /** The Prometheus text exposition of every metric of this process. */
  prometheusText(): Promise<string>;
  /** Flushes pending exports and unregisters the providers. Idempotent. */
  shutdown(): Promise<void>;
}

export const PROMETHEUS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

let active: Telemetry | undefined;

/** This process's telemetry, once started. */
export const activeTelemetry = (): Telemetry | undefined => active;

/**
 * Registers the process-wide tracer and meter providers, the W3C propagators and an async context
 * manager, and hands them to the auto-instrumentations when register.ts enabled them. One per process.
 */
export function startTelemetry(options: TelemetryOptions): Telemetry {
  if (active) throw new Error("telemetry is already started in this process");
  const resource = resourceFromAttributes({ [ATTR_SERVICE_NAME]: options.serviceName }).merge(
    detectResources({ detectors: [hostDetector, resourceAttributesEnvDetector, serviceNameEnvDetector] }),
  );

  const spanProcessors = [...(options.otlp ? [new BatchSpanProcessor({ exporter: new OTLPTraceExporter() })] : []), ...(options.spanProcessors ?? [])];
  // With nothing to receive spans, recording them is pure cost (a third of a polled request's CPU in the
  // API): they stay non-recording, and the instrumentations' metrics are kept.
  const sampler = spanProcessors.length === 0 ? new AlwaysOffSampler() : (options.sampler ?? new ParentBasedSampler({ root: new AlwaysOnSampler() }));
  const tracerProvider = new TracerProvider({ resource, sampler, spanProcessors });

  // Scrapes pull from this reader; our own HTTP routes serve it, so its server never starts.
  const prometheus = new PrometheusExporter({ preventServerStart: true });
  const serializer = new PrometheusSerializer();
  const readers: IMetricReader[] = [prometheus, ...(options.metricReaders ?? [])];
  if (options.otlp) {
    readers.push(new PeriodicExportingMetricReader({ exporter: new OTLPMetricExporter(), exportIntervalMillis: options.metricExportIntervalMs ?? 60_000 }));
  }
  const meterProvider = new MeterProvider({ resource, readers });

  const contextManager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);
  propagation.setGlobalPropagator(new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] }));
  trace.setGlobalTracerProvider(tracerProvider);
  metrics.setGlobalMeterProvider(meterProvider);
  const disableInstrumentations = registerInstrumentations({ instrumentations: [...autoInstrumentations()], tracerProvider, meterProvider });

  let stopping: Promise<void> | undefined;
  const telemetry: Telemetry = {
    async prometheusText() {
      const { resourceMetrics } = await prometheus.collect();
      return serializer.serialize(resourceMetrics);
    },
    shutdown: () =>
      (stopping ??= (async () => {
        await Promise.allSettled([tracerProvider.shutdown(), meterProvider.shutdown()]);
        disableInstrumentations();
        trace.disable();
        metrics.disable();
        propagation.disable();
        context.disable();
        if (active === telemetry) active = undefined;
      })()),
  };
  active = telemetry;
  return telemetry;
}
