import type { Logger } from 'pino'
import type { Clock } from '../base/clock.ts'
import { UsageService } from '../domain/usage/service.ts'
import { UsageBuffer, type UsageRecorder } from '../domain/usage/recorder.ts'
import type { UsageStore } from '../storage/usage/types.ts'

/** How often an instance adds its counts to the database: they are there within 15 s (DESIGN §6). */
const USAGE_FLUSH_INTERVAL_MS = 10_000
/** How often buckets past their retention are deleted. */
const USAGE_PRUNE_INTERVAL_MS = 5 * 60_000

interface UsageHistory {
  /** Counts each request on the hot path, in memory. */
  recorder: UsageRecorder
  service: UsageService
  /** Stops the timers, waits for a prune under way, then stores what is left; before the storage closes. */
  close(): Promise<void>
}

/** Usage history: counted in memory, added to the database every 10 s and at close, pruned every 5 minutes. */
export function usageHistory(
  store: UsageStore,
  clock: Clock,
  logger: Logger,
  options: { flushIntervalMs?: number | undefined }
): UsageHistory {
  let closing = false
  const buffer = new UsageBuffer(store, {
    failed: (error, deltas) =>
      closing
        ? logger.error({ err: error, deltas }, 'could not store usage history at shutdown: its latest counts are lost')
        : logger.warn({ err: error, deltas }, 'could not store usage history; its counts are kept for the next flush')
  })
  const service = new UsageService(store, clock, { flush: () => buffer.flush() })
  // flush() never rejects.
  const flushing = setInterval(() => void buffer.flush(), options.flushIntervalMs ?? USAGE_FLUSH_INTERVAL_MS)
  flushing.unref()
  let pruning: Promise<void> | undefined
  const pruner = setInterval(() => {
    pruning ??= service
      .prune()
      .then(
        () => undefined,
        (error: unknown) => logger.warn({ err: error }, 'could not prune usage history')
      )
      .finally(() => (pruning = undefined))
  }, USAGE_PRUNE_INTERVAL_MS)
  pruner.unref()
  return {
    recorder: buffer,
    service,
    close: async () => {
      clearInterval(flushing)
      clearInterval(pruner)
      await pruning
      closing = true
      await buffer.flush()
    }
  }
}
