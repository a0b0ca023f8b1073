import type { Clock } from '../../base/clock.ts'
import { isPending, type Maybe } from '../../base/maybe.ts'
import { ApiError } from '../../domain/api-error.ts'
import type { KeyCache } from '../../domain/keys/cache.ts'
import { looksLikeKey } from '../../domain/keys/secret.ts'
import type { ApiKeyRecord, KeyMatch } from '../../storage/keys/types.ts'

export type AuthResult = { ok: true; key: ApiKeyRecord } | { ok: false; error: ApiError }

const REALM = 'Bearer realm="animal-store"'

function refuse(message: string, invalidToken: boolean): AuthResult {
  const challenge = invalidToken ? `${REALM}, error="invalid_token", error_description="${message}"` : REALM
  return { ok: false, error: new ApiError('unauthorized', message, { 'www-authenticate': challenge }) }
}

const BEARER = /^Bearer +(\S+) *$/i

/** Resolves `Authorization: Bearer <key>` to a live key, or to the 401 that refuses it. */
export class Authenticator {
  readonly #keys: KeyCache
  readonly #clock: Clock

  constructor(keys: KeyCache, clock: Clock) {
    this.#keys = keys
    this.#clock = clock
  }

  /** Synchronous when the key is cached (or the header is refused outright); a promise when the store is asked. */
  authenticate(header: string | undefined): Maybe<AuthResult> {
    if (header === undefined || header === '') return refuse('missing Authorization: Bearer <API key>', false)
    const match = BEARER.exec(header)
    // Another scheme (Basic, ...) offers no bearer token: RFC 6750 sends the bare challenge then.
    if (match === null) return refuse('the Authorization header must be: Bearer <API key>', /^bearer\b/i.test(header))
    const secret = match[1]!
    // Only our own key shape is looked up: junk never costs a hash or a query.
    if (!looksLikeKey(secret)) return refuse('the API key is not valid', true)
    const found = this.#keys.find(secret)
    return isPending(found) ? found.then((settled) => this.#check(settled)) : this.#check(found)
  }

  #check(key: KeyMatch | undefined): AuthResult {
    if (key === undefined) return refuse('the API key is not valid', true)
    const now = this.#clock.now()
    // Checked against the clock, not the cache: a rotation's grace ends at the same moment everywhere.
    if (key.secretStopsAt !== null && key.secretStopsAt <= now)
      return refuse('the API key has been replaced by a new secret (rotated); use the new one', true)
    if (key.revokedAt !== null && key.revokedAt <= now) return refuse('the API key has been revoked', true)
    if (key.expiresAt !== null && key.expiresAt <= now) return refuse('the API key has expired', true)
    return { ok: true, key }
  }
}
