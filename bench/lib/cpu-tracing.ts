// `--cpu --tracing SETTINGS`: the same checkout's embedded service with tracing off against
// tracing on under each sampler setting, every traced server exporting over OTLP/HTTP protobuf
// to a receiver of the harness's own (otlp-sink.ts) that answers at once.
import type { AbSummary } from './cpu-ab.ts'
import type { SinkCounts } from './otlp-sink.ts'

/** The samplers the service takes in OTEL_TRACES_SAMPLER. */
const SAMPLERS = ['always_on', 'always_off', 'traceidratio', 'parentbased_always_on', 'parentbased_always_off', 'parentbased_traceidratio']

export interface TracingSetting {
  sampler: string
  /** OTEL_TRACES_SAMPLER_ARG, for the ratio samplers. */
  ratio: number | undefined
  /** `always_on`, `traceidratio 0.1`: also names its side, `tracing <label>`. */
  label: string
}

/** `always_off,traceidratio:0.1,always_on` to settings; throws saying what is wrong. */
export function parseTracingSettings(raw: string): TracingSetting[] {
  const settings = raw
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '')
    .map((item): TracingSetting => {
      const [sampler = '', arg, ...rest] = item.split(':')
      if (!SAMPLERS.includes(sampler) || rest.length > 0)
        throw new Error(`${JSON.stringify(item)} is not SAMPLER[:RATIO] with SAMPLER one of ${SAMPLERS.join(', ')}`)
      const ratioSampler = sampler.endsWith('traceidratio')
      if (ratioSampler !== (arg !== undefined)) throw new Error(`${item}: a ratio goes with the traceidratio samplers, and only with them`)
      const ratio = arg === undefined ? undefined : Number(arg)
      if (ratio !== undefined && !(arg !== '' && ratio >= 0 && ratio <= 1))
        throw new Error(`${item}: the ratio must be a number from 0 to 1`)
      return { sampler, ratio, label: ratio === undefined ? sampler : `${sampler} ${ratio}` }
    })
  if (settings.length === 0) throw new Error('name at least one sampler setting')
  if (new Set(settings.map((s) => s.label)).size !== settings.length) throw new Error('a sampler setting is named twice')
  return settings
}

export const OFF_SIDE = 'tracing off'
export const sideOf = (setting: TracingSetting) => `tracing ${setting.label}`

/** The variables that turn a server's tracing on, exporting to `endpoint`. */
export function tracingEnv(setting: TracingSetting, endpoint: string): NodeJS.ProcessEnv {
  return {
    OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
    OTEL_TRACES_SAMPLER: setting.sampler,
    ...(setting.ratio === undefined ? {} : { OTEL_TRACES_SAMPLER_ARG: String(setting.ratio) })
  }
}

/** The share of root requests the setting samples (the bench sends no traceparent, so parentbased_* decide as their root sampler). */
const sampledShare = (setting: TracingSetting) => (setting.sampler.endsWith('always_off') ? 0 : (setting.ratio ?? 1))

/**
 * The least speed (on ÷ off) the project asks of a setting: 0.95 when nothing is sampled,
 * 0.90 when up to a tenth is, 0.70 above that (every request sampled).
 */
export function tracingTarget(setting: TracingSetting): number {
  const share = sampledShare(setting)
  return share === 0 ? 0.95 : share <= 0.1 ? 0.9 : 0.7
}

export interface TracingOutcome {
  setting: TracingSetting
  side: string
  target: number
  sink: SinkCounts
}

/** One line per workload and setting: the target met or not, by the median and by the whole interval. */
export function targetLines(outcomes: TracingOutcome[], summaries: AbSummary[]): string[] {
  return summaries.flatMap((s) => {
    const outcome = outcomes.find((o) => o.side === s.side)
    if (outcome === undefined) return []
    const { median, low } = s.interval
    const met = median >= outcome.target ? (low >= outcome.target ? 'MET' : 'MET (not certain: the interval reaches below)') : 'NOT MET'
    return [`${s.workload}, ${outcome.setting.label}: ${median.toFixed(3)}× of tracing off, target ≥ ${outcome.target}×: ${met}`]
  })
}

/**
 * What the receivers saw over the whole run (probes and warm-up included). A setting that samples
 * every request must have exported, one that samples none must not have: otherwise tracing was
 * not on as asked. (A small ratio may rightly export nothing in a short run.)
 */
export function sinkProblems(outcomes: TracingOutcome[]): string[] {
  return outcomes.flatMap(({ setting, sink }) => {
    if (sink.other > 0) return [`${setting.label}: ${sink.other} request(s) to the receiver were not POST /v1/traces`]
    const share = sampledShare(setting)
    if (share === 1 && sink.exports === 0) return [`${setting.label}: nothing was exported, so tracing was not on`]
    if (share === 0 && sink.exports > 0) return [`${setting.label}: ${sink.exports} export(s), though it samples nothing`]
    return []
  })
}

export const sinkLine = ({ setting, sink }: TracingOutcome) =>
  `${setting.label}: ${sink.exports.toLocaleString('en-US')} exports, ${(sink.bytes / 1e6).toFixed(1)} MB`
