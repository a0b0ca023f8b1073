import type { Cluster, Redis } from 'ioredis'
import { KEY_PREFIX, type SubjectBan } from '../types.ts'

/** Keys a SCAN step looks at: large enough to walk a big keyspace in few round trips, small enough to keep each step short. */
const SCAN_COUNT = 1000

/** `text` matched literally by a SCAN pattern: glob characters escaped. */
const literal = (text: string) => text.replace(/[*?[\]\\]/g, '\\$&')

/** The masters to scan: each node of a cluster holds only its own slots' keys. */
function mastersOf(redis: Redis | Cluster): Redis[] {
  return redis.isCluster ? (redis as Cluster).nodes('master') : [redis as Redis]
}

const BAN_SUFFIX = '}:ban'

/**
 * The keys' bans (subjects `key:<id>`), found by scanning every master for their
 * `<keysBefore><subject>}:ban` keys (`keysBefore`: `<REDIS_KEY_PREFIX>rl:{`) and reading each one. A ban is one key per subject with a TTL
 * (set by the consume script, which must touch only its subject's hash slot on a cluster), so no
 * shared index could be kept atomically; a scan is exact on one Redis and on a cluster alike,
 * and costs a walk of the keyspace, which only an operator's query pays.
 */
export async function scanKeyBans(redis: Redis | Cluster, keysBefore: string, now: number): Promise<SubjectBan[]> {
  const pattern = `${literal(keysBefore + KEY_PREFIX)}*${BAN_SUFFIX}`
  const found = new Set<string>()
  for (const node of mastersOf(redis)) {
    let cursor = '0'
    do {
      const [next, keys] = await node.scan(cursor, 'MATCH', pattern, 'COUNT', SCAN_COUNT)
      for (const key of keys) found.add(key)
      cursor = next
    } while (cursor !== '0')
  }
  const keys = [...found]
  // One GET each: on a cluster the keys live in different slots, which one MGET cannot span.
  const ends = await Promise.all(keys.map((key) => redis.get(key)))
  const bans: SubjectBan[] = []
  keys.forEach((key, i) => {
    const bannedUntil = Number(ends[i] ?? 0)
    if (bannedUntil > now) bans.push({ subject: key.slice(keysBefore.length, key.length - BAN_SUFFIX.length), bannedUntil })
  })
  return bans
}
