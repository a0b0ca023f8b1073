import type { Logger } from 'pino'
import type { Clock } from './base/clock.ts'
import type { Tracing } from './base/tracing.ts'
import type { Config } from './config.ts'
import type { AuditLog } from './domain/audit/log.ts'
import type { CustomerDirectory } from './domain/customers/directory.ts'
import type { CustomerService } from './domain/customers/service.ts'
import type { KeyDirectory } from './domain/keys/directory.ts'
import type { KeyService } from './domain/keys/service.ts'
import type { OperatorService } from './domain/operators/service.ts'
import type { PetService } from './domain/pets/service.ts'
import type { PlanService } from './domain/plans/service.ts'
import type { UsageService } from './domain/usage/service.ts'
import type { Authenticator } from './http/services/authenticator.ts'
import type { PetPages } from './http/services/page-cache.ts'
import type { Metrics } from './http/services/metrics.ts'
import type { SpeculativeReads } from './http/services/speculative-reads.ts'
import type { RateLimiter } from './limits/rate-limiter.ts'
import type { ReadinessCheck } from './routes/health.ts'
import type { Storage } from './storage/types.ts'

// What the composition root (compose.ts) hands out: interfaces only, so the app and the CLI
// depend on what the services do, never on which implementations were chosen.

/** What the CLI's commands need (`animal-store keys ...`, `migrate`): storage and key administration. */
export interface CliServices {
  config: Config
  clock: Clock
  storage: Storage
  /** Migrations this start applied. */
  migrationsApplied: number
  keys: KeyService
  customers: CustomerService
  plans: PlanService
  operators: OperatorService
  /** Closes the counters, then the storage. */
  close(): Promise<void>
}

/** Everything the serving app is built from. */
export interface Services extends CliServices {
  logger: Logger
  metrics: Metrics
  pets: PetService
  pages: PetPages
  authenticator: Authenticator
  limiter: RateLimiter
  /** Usage history by key and minute, hour and day: what the operator API reads. */
  usage: UsageService
  /** Keys as the operator API lists them (filtered, banned now, most used), and the audit log. */
  directory: KeyDirectory
  /** Customers as the operator API lists them, their usage, the most used. */
  customerDirectory: CustomerDirectory
  audit: AuditLog
  /** Present when reads may start before their rate-limit verdict (counters across the network). */
  speculation: SpeculativeReads | undefined
  readiness: Record<string, ReadinessCheck>
  /** Present when OTEL_* turns tracing on. */
  tracing: Tracing | undefined
}
