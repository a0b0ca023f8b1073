import { PerTurnBatch } from '../../base/per-turn.ts'
import { clusterHealth, connectRedis, type RedisOptions, type ScriptedRedis } from './connection.ts'
import { CONSUME_MANY } from './consume-script.ts'
import { readAnswer, scriptArguments, subjectKeys, type Group, type SubjectKeys } from './consume-call.ts'
import type { ConsumeRequest, ConsumeResult, RemoteCounterStore, SubjectBan, SubjectUsage } from '../types.ts'
import { scanKeyBans } from './ban-scan.ts'

/**
 * Consumes per script call at most: the script holds Redis for its whole batch (a few µs per
 * consume), so a burst is cut into calls that leave room for other clients between them.
 */
const MAX_CONSUMES_PER_CALL = 256

function settled(answer: ConsumeResult | Error): ConsumeResult {
  if (answer instanceof Error) throw answer
  return answer
}

/**
 * Counters and bans in Redis, or in a Redis Cluster: exact and atomic across any number of
 * instances. Every key of a subject carries the hash tag `{subject}`, so on a cluster all of
 * them live in one slot and each consume is still one atomic script.
 */
export class RedisCounterStore implements RemoteCounterStore {
  readonly redis: ScriptedRedis
  readonly #prefix: string
  readonly #cluster: boolean

  constructor(options: RedisOptions) {
    this.#prefix = options.keyPrefix
    this.#cluster = options.clusterNodes !== undefined
    this.redis = connectRedis(options)
    // Sent as EVALSHA, and as EVAL once per connection when Redis does not know the script yet.
    this.redis.defineCommand('animalStoreConsumeMany', { lua: CONSUME_MANY })
    // Errors are reported through the failing commands; an unhandled 'error' event would crash.
    this.redis.on('error', () => {})
  }

  get ready(): boolean {
    return this.redis.status === 'ready'
  }

  get status(): string {
    return this.redis.status
  }

  /** `ok`, or why the cluster cannot serve every slot; one Redis is ok while ready. */
  health(): Promise<string> {
    return this.#cluster ? clusterHealth(this.redis) : Promise.resolve('ok')
  }

  /** Resolves true once connected, false if not within `timeoutMs` (it keeps trying afterwards). */
  whenReady(timeoutMs: number): Promise<boolean> {
    if (this.ready) return Promise.resolve(true)
    // Connection errors meanwhile are not an answer (ioredis reports each failed attempt and
    // retries): only 'ready' or the timeout is.
    return new Promise((resolve) => {
      const ready = () => {
        clearTimeout(timer)
        resolve(true)
      }
      const timer = setTimeout(() => {
        this.redis.off('ready', ready)
        resolve(false)
      }, timeoutMs)
      this.redis.once('ready', ready)
    })
  }

  #keys(subject: string, now: number): SubjectKeys {
    return subjectKeys(this.#prefix, subject, now)
  }

  /**
   * The consumes of one event-loop turn go to Redis as one script call once the turn is over.
   * ioredis's auto-pipelining also sent them in one write, but as one command each, held
   * together until the last reply: ~2.6 KB per request outlived young-generation collections,
   * and the old generation grew by ~100 MB between full collections (RSS over 200 MB, and
   * pauses of 10 to 16 ms).
   */
  readonly #consumes = new PerTurnBatch<ConsumeRequest, ConsumeResult | Error>(
    (requests) => this.#consumeMany(requests),
    MAX_CONSUMES_PER_CALL
  )

  consume(request: ConsumeRequest): Promise<ConsumeResult> {
    const answer = this.#consumes.add(request)
    // Only a cluster answers some subjects and fails others (a slot whose node is down).
    return this.#cluster ? answer.then(settled) : (answer as Promise<ConsumeResult>)
  }

  async #consumeMany(requests: ConsumeRequest[]): Promise<Array<ConsumeResult | Error>> {
    // Positions in `requests` by group, in arrival order.
    const groups = new Map<string, Group>()
    requests.forEach(({ subject, limits, now, banThreshold, banMs }, index) => {
      const keys = this.#keys(subject, now)
      // The minute, day and month keys name the subject and its windows.
      const id = `${keys[0]} ${keys[1]} ${keys[4]} ${limits.perMinute} ${limits.perDay} ${limits.perMonth} ${banThreshold} ${banMs}`
      const group = groups.get(id)
      if (group === undefined) groups.set(id, { subject, keys, indexes: [index] })
      else group.indexes.push(index)
    })
    const results = new Array<ConsumeResult | Error>(requests.length)
    if (!this.#cluster) {
      await this.#script(requests, [...groups.values()], results)
      return results
    }
    // A script's keys must share one slot on a cluster: one call per subject, sent together. A
    // call that fails fails its own subject's consumes only.
    const bySubject = new Map<string, Group[]>()
    for (const group of groups.values()) bySubject.set(group.subject, [...(bySubject.get(group.subject) ?? []), group])
    await Promise.all(
      [...bySubject.values()].map((subjectGroups) =>
        this.#script(requests, subjectGroups, results).catch((error: unknown) => {
          const failure = error instanceof Error ? error : new Error(String(error))
          for (const { indexes } of subjectGroups) for (const index of indexes) results[index] = failure
        })
      )
    )
    return results
  }

  /** One CONSUME_MANY call for `groups`; their results go to their positions in `results`. */
  async #script(requests: ConsumeRequest[], groups: Group[], results: Array<ConsumeResult | Error>): Promise<void> {
    const args = scriptArguments(requests, groups)
    readAnswer(await this.redis.animalStoreConsumeMany(...args), groups, results)
  }

  async usage(subject: string, now: number): Promise<SubjectUsage> {
    const [minute, day, , ban, month] = this.#keys(subject, now)
    const [m, d, b, mo] = await this.redis.mget(minute, day, ban, month)
    const bannedUntil = b === null ? null : Number(b)
    return {
      minuteUsed: Number(m ?? 0),
      dayUsed: Number(d ?? 0),
      monthUsed: Number(mo ?? 0),
      bannedUntil: bannedUntil !== null && bannedUntil > now ? bannedUntil : null
    }
  }

  async unban(subject: string, now: number): Promise<void> {
    const [, , refusals, ban] = this.#keys(subject, now)
    await this.redis.del(ban, refusals)
  }

  /** Every key's ban key, found by a scan of each master (see ban-scan.ts): an operator's query, never a request's. */
  bans(now: number): Promise<SubjectBan[]> {
    return scanKeyBans(this.redis, `${this.#prefix}rl:{`, now)
  }

  async close(): Promise<void> {
    this.redis.disconnect()
  }
}
