import { AlwaysOffSampler, AlwaysOnSampler, ParentBasedSampler, TraceIdRatioBasedSampler, type Sampler } from "@opentelemetry/sdk-trace";
import type { Env } from "../config/env.ts";
import type { TelemetryOptions } from "./telemetry.ts";

type TelemetryEnv = Pick<Env, "OTEL_EXPORTER_OTLP_ENDPOINT" | "OTEL_TRACES_SAMPLER" | "OTEL_TRACES_SAMPLER_ARG" | "OTEL_METRIC_EXPORT_INTERVAL">;

/** Telemetry options of a process from its parsed environment; `serviceName` is its default `service.name`. */
export function telemetryOptionsFromEnv(env: TelemetryEnv, serviceName: string): TelemetryOptions {
  return {
    serviceName,
    otlp: env.OTEL_EXPORTER_OTLP_ENDPOINT !== undefined,
    metricExportIntervalMs: env.OTEL_METRIC_EXPORT_INTERVAL,
    sampler: samplerFor(env.OTEL_TRACES_SAMPLER, env.OTEL_TRACES_SAMPLER_ARG),
  };
}

function samplerFor(name: TelemetryEnv["OTEL_TRACES_SAMPLER"], ratio: number): Sampler {
  const root = name.endsWith("always_on") ? new AlwaysOnSampler() : name.endsWith("always_off") ? new AlwaysOffSampler() : new TraceIdRatioBasedSampler(ratio);
  return name.startsWith("parentbased_") ? new ParentBasedSampler({ root }) : root;
}
