import { AlwaysOffSampler, AlwaysOnSampler, ParentBasedSampler, TraceIdRatioBasedSampler, type Sampler } from '@opentelemetry/sdk-trace'
import type { TracingConfig } from '../base/tracing.ts'
import { newTraceId } from './span-ids.ts'

/** The OTEL_TRACES_SAMPLER named, as the SDK defines it. */
export function samplerOf({ name, ratio }: TracingConfig['sampler']): Sampler {
  const root = name.endsWith('always_off')
    ? new AlwaysOffSampler()
    : name.endsWith('traceidratio')
      ? new TraceIdRatioBasedSampler(ratio)
      : new AlwaysOnSampler()
  return name.startsWith('parentbased_') ? new ParentBasedSampler({ root }) : root
}

const word = () => (Math.random() * 2 ** 32) >>> 0

/**
 * The sampler's decision for a root request (no `traceparent`): the trace id of a request it
 * takes, undefined for one it leaves out. A ratio decides as the SDK's TraceIdRatioBasedSampler
 * does (the id's four 32-bit words xor-ed, below ratio × 2³²), but draws that xor first: a
 * request left out costs one random number; a taken one gets three more words and a first word
 * that makes the xor come out as drawn (uniform, as an id drawn whole would be).
 */
export function rootDecision({ name, ratio }: TracingConfig['sampler']): () => string | undefined {
  if (name.endsWith('always_off')) return () => undefined
  if (!name.endsWith('traceidratio')) return newTraceId
  const clamped = Number.isNaN(ratio) ? 0 : Math.min(1, Math.max(0, ratio))
  const upper = clamped === 1 ? 2 ** 32 : Math.floor(clamped * 0xffffffff)
  // Spelt out in hex by Buffer: Number#toString(16) cost ~1.5 µs per id.
  const id = Buffer.alloc(16)
  return () => {
    const xor = word()
    if (xor >= upper) return undefined
    const b = word()
    const c = word()
    const d = word()
    const a = (xor ^ b ^ c ^ d) >>> 0
    // An all-zero id is invalid: the SDK's sampler would leave it out.
    if ((a | b | c | d) === 0) return undefined
    id.writeUInt32BE(a, 0)
    id.writeUInt32BE(b, 4)
    id.writeUInt32BE(c, 8)
    id.writeUInt32BE(d, 12)
    return id.toString('hex')
  }
}
