import { monthAt } from '../../domain/rate-limits/month.ts'
import { DAY_MS, MINUTE_MS, windowStart } from '../../domain/rate-limits/policy.ts'
import type { ConsumeRequest, ConsumeResult } from '../types.ts'

// How CONSUME_MANY's arguments are laid out and its answer read (see consume-script.ts).

// Keys outlive their window by this much, so a clock slightly behind another instance's
// still finds them.
const TTL_SLACK_MS = 120_000
/** The numbers CONSUME_MANY answers per consume. */
const FIELDS_PER_CONSUME = 6

/** A subject's minute, day, refusals, ban and month keys at some moment. */
export type SubjectKeys = [minute: string, day: string, refusals: string, ban: string, month: string]

/** The consumes of one subject in the same windows, under the same limits. */
export interface Group {
  subject: string
  keys: SubjectKeys
  indexes: number[]
}

/** Every key carries the hash tag `{subject}`: on a cluster, a subject's keys share one slot. */
export function subjectKeys(prefix: string, subject: string, now: number): SubjectKeys {
  const base = `${prefix}rl:{${subject}}`
  const minute = windowStart(now, MINUTE_MS)
  return [
    `${base}:m:${minute}`,
    `${base}:d:${windowStart(now, DAY_MS)}`,
    `${base}:r:${minute}`,
    `${base}:ban`,
    `${base}:mo:${monthAt(now).start}`
  ]
}

/** The script's arguments for `groups`: the number of keys, the keys, then each group's values. */
export function scriptArguments(requests: ConsumeRequest[], groups: Group[]): [number, ...string[]] {
  const keys: string[] = []
  const values: string[] = []
  for (const { keys: groupKeys, indexes } of groups) {
    const { limits, now, banThreshold, banMs } = requests[indexes[0]!]!
    keys.push(...groupKeys)
    // A new key lives until its window ends (counted from the group's first consume), plus slack.
    const minuteTtl = windowStart(now, MINUTE_MS) + MINUTE_MS - now + TTL_SLACK_MS
    const dayTtl = windowStart(now, DAY_MS) + DAY_MS - now + TTL_SLACK_MS
    const monthTtl = monthAt(now).end - now + TTL_SLACK_MS
    values.push(
      String(limits.perMinute),
      String(limits.perDay),
      String(banMs),
      String(minuteTtl),
      String(dayTtl),
      banThreshold === null ? '' : String(banThreshold),
      limits.perMonth === null ? '' : String(limits.perMonth),
      String(monthTtl),
      indexes.map((i) => requests[i]!.now).join(' ')
    )
  }
  return [keys.length, ...keys, ...values]
}

/** Puts the script's answer for `groups` at the groups' positions in `results`. */
export function readAnswer(answer: string, groups: Group[], results: Array<ConsumeResult | Error>): void {
  const fields = answer.split(' ')
  let at = 0
  for (const { indexes } of groups) {
    for (const index of indexes) {
      const outcome = fields[at]
      results[index] = {
        outcome: outcome === '0' ? 'allowed' : outcome === '1' ? 'limited' : 'banned',
        minuteUsed: Number(fields[at + 1]),
        dayUsed: Number(fields[at + 2]),
        monthUsed: Number(fields[at + 3]),
        bannedUntil: outcome === '2' ? Number(fields[at + 4]) : null,
        banStarted: fields[at + 5] === '1'
      }
      at += FIELDS_PER_CONSUME
    }
  }
  if (at !== fields.length) throw new Error(`redis answered ${fields.length} fields for ${at / FIELDS_PER_CONSUME} consumes`)
}
