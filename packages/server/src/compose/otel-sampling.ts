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

const word = () => (Math.random() * 2 ** 32) >>> 0
const hex = (n: number) => n.toString(16).padStart(8, '0')

/**
 * The sampler's decision for a root request (no `traceparent`): the trace id of a request it
 * takes, undefined for one it leaves out. A ratio decides as the SDK's TraceIdRatioBasedSampler
 * does (the id's four 32-bit words xor-ed, below ratio × 2³²), but on the words as drawn: a
 * request left out costs four random numbers, no id spelt out in hex.
 */
export function rootDecision({ name, ratio }: TracingConfig['sampler'], ids: DecidedIds): () => string | undefined {
  if (name.endsWith('always_off')) return () => undefined
  if (!name.endsWith('traceidratio')) return () => ids.random.generateTraceId()
  const clamped = Number.isNaN(ratio) ? 0 : Math.min(1, Math.max(0, ratio))
  const upper = clamped === 1 ? 2 ** 32 : Math.floor(clamped * 0xffffffff)
  return () => {
    const a = word()
    const b = word()
    const c = word()
    const d = word()
    // An all-zero id is invalid: the SDK's sampler would leave it out.
    if ((a ^ b ^ c ^ d) >>> 0 >= upper || (a | b | c | d) === 0) return undefined
    return hex(a) + hex(b) + hex(c) + hex(d)
  }
}
