import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import {
  defaultResource,
  detectResources,
  envDetector,
  resourceFromAttributes,
} from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  type Sampler,
  TraceIdRatioBasedSampler,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import { z } from 'zod';
import type { Logger } from '../logger.ts';
import { describeIssues } from '../zodIssues.ts';
import { setTracingEnabled } from './spans.ts';

// The standard OTEL_* settings Tally reads itself; the exporter reads its own (OTEL_EXPORTER_OTLP_HEADERS,
// _TIMEOUT, _COMPRESSION, the TRACES_ variants) and the resource OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES.
const tracingSettings = z.object({
  OTEL_EXPORTER_OTLP_ENDPOINT: z.url().optional(),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: z.url().optional(),
  OTEL_SDK_DISABLED: z.enum(['true', 'false']).optional(),
  OTEL_TRACES_EXPORTER: z.enum(['otlp', 'none']).optional(),
  OTEL_TRACES_SAMPLER: z
    .enum([
      'always_on',
      'always_off',
      'traceidratio',
      'parentbased_always_on',
      'parentbased_always_off',
      'parentbased_traceidratio',
    ])
    .default('parentbased_always_on'),
  OTEL_TRACES_SAMPLER_ARG: z.coerce.number().min(0).max(1).default(1),
});

type TracingSettings = z.infer<typeof tracingSettings>;

function samplerOf({ OTEL_TRACES_SAMPLER: name, OTEL_TRACES_SAMPLER_ARG: ratio }: TracingSettings): Sampler {
  const root = name.endsWith('always_off')
    ? new AlwaysOffSampler()
    : name.endsWith('traceidratio')
      ? new TraceIdRatioBasedSampler(ratio)
      : new AlwaysOnSampler();
  return name.startsWith('parentbased_') ? new ParentBasedSampler({ root }) : root;
}

/**
 * Exports traces over OTLP/HTTP when OTEL_EXPORTER_OTLP_ENDPOINT (or its TRACES_ variant) is set; otherwise
 * registers nothing, and every span wrapper (spans.ts) stays out of the way. Returns the step that flushes
 * and stops it, or null when tracing is off. Invalid settings throw, naming each.
 */
export function startTracing(
  env: Record<string, string | undefined>,
  log: Logger,
): (() => Promise<void>) | null {
  const parsed = tracingSettings.safeParse(env);
  if (!parsed.success) throw new Error(`tracing settings invalid: ${describeIssues(parsed.error, 'env')}`);
  const settings = parsed.data;
  const endpoint = settings.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? settings.OTEL_EXPORTER_OTLP_ENDPOINT;
  if (!endpoint || settings.OTEL_SDK_DISABLED === 'true' || settings.OTEL_TRACES_EXPORTER === 'none')
    return null;

  const resource = defaultResource()
    .merge(resourceFromAttributes({ 'service.name': 'tally' }))
    .merge(detectResources({ detectors: [envDetector] }));
  const provider = new TracerProvider({
    resource,
    sampler: samplerOf(settings),
    spanProcessors: [new BatchSpanProcessor({ exporter: new OTLPTraceExporter() })],
  });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  setTracingEnabled(true);
  log.info({ endpoint, sampler: settings.OTEL_TRACES_SAMPLER }, 'exporting traces over OTLP/HTTP');
  return async () => {
    setTracingEnabled(false);
    await provider.shutdown().catch((err: unknown) => log.error(err, 'trace export did not flush'));
    trace.disable();
    propagation.disable();
    context.disable();
  };
}
