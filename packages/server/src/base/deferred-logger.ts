import type { FastifyBaseLogger } from 'fastify'
import type { Bindings, ChildLoggerOptions, LevelWithSilentOrString, Logger } from 'pino'

type Method = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace'
type LogArguments = Parameters<Logger['info']>

/**
 * A request's logger that makes pino's child only when a line is written at an enabled level.
 * pino serializes a child's bindings when the child is made, and Fastify makes one for every
 * request (for its request id) although most requests write no line.
 */
export class DeferredLogger implements FastifyBaseLogger {
  readonly #parent: Logger
  readonly #bindings: Bindings
  readonly #options: ChildLoggerOptions
  #child: Logger | undefined

  constructor(parent: Logger, bindings: Bindings, options: ChildLoggerOptions = {}) {
    this.#parent = parent
    this.#bindings = bindings
    this.#options = options
  }

  get level(): LevelWithSilentOrString {
    return this.#child?.level ?? this.#options.level ?? this.#parent.level
  }

  set level(level: LevelWithSilentOrString) {
    this.#logger().level = level
  }

  isLevelEnabled(level: LevelWithSilentOrString): boolean {
    return this.#child === undefined && this.#options.level === undefined
      ? this.#parent.isLevelEnabled(level)
      : this.#logger().isLevelEnabled(level)
  }

  /** Still deferred: the bindings add up, and pino's child is made at the first line. */
  child(bindings: Bindings, options: ChildLoggerOptions = {}): DeferredLogger {
    if (this.#child !== undefined) return new DeferredLogger(this.#child, bindings, options)
    return new DeferredLogger(this.#parent, { ...this.#bindings, ...bindings }, { ...this.#options, ...options })
  }

  fatal(...line: LogArguments): void {
    this.#write('fatal', line)
  }
  error(...line: LogArguments): void {
    this.#write('error', line)
  }
  warn(...line: LogArguments): void {
    this.#write('warn', line)
  }
  info(...line: LogArguments): void {
    this.#write('info', line)
  }
  debug(...line: LogArguments): void {
    this.#write('debug', line)
  }
  trace(...line: LogArguments): void {
    this.#write('trace', line)
  }
  silent(): void {}

  #write(method: Method, line: LogArguments): void {
    if (this.isLevelEnabled(method)) this.#logger()[method](...line)
  }

  #logger(): Logger {
    this.#child ??= this.#parent.child(this.#bindings, this.#options)
    return this.#child
  }
}

/** Fastify's `childLoggerFactory`: a deferred child of the service's logger for each request. */
export function deferredChildLogger(parent: FastifyBaseLogger, bindings: Bindings, options: ChildLoggerOptions): FastifyBaseLogger {
  return new DeferredLogger(parent as Logger, bindings, options)
}
