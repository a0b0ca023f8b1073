import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  ParentBasedSampler,
  RandomIdGenerator,
  TraceIdRatioBasedSampler,
  type IdGenerator,
  type Sampler
} from '@opentelemetry/sdk-trace'
import type { TracingConfig } from '../base/tracing.ts'

/** The OTEL_TRACES_SAMPLER named, as the SDK defines it. */
export function samplerOf({ name, ratio }: TracingConfig['sampler']): Sampler {
  const root = name.endsWith('always_off')
    ? new AlwaysOffSampler()
    : name.endsWith('traceidratio')
      ? new TraceIdRatioBasedSampler(ratio)
      : new AlwaysOnSampler()
  return name.startsWith('parentbased_') ? new ParentBasedSampler({ root }) : root
}

/**
 * Random ids, except that the next root span takes the trace id the sampler already decided on
 * (a ratio sampler decides by the trace id's bits): the span then has the id its decision was made for.
 */
export class DecidedIds implements IdGenerator {
  readonly random = new RandomIdGenerator()
  decided: string | undefined

  generateTraceId(): string {
    const id = this.decided ?? this.random.generateTraceId()
    this.decided = undefined
    return id
  }

  generateSpanId(): string {
    return this.random.generateSpanId()
  }
}
