import type { FastifyRequest } from 'fastify'
import type { Maybe } from '../../base/maybe.ts'
import type { Verdict } from '../../limits/rate-limiter.ts'

/**
 * With counters across the network (Redis), a read by a key in good standing runs while the
 * rate limiter's round trip is in flight instead of after it, and its response is held until
 * the verdict arrives (`hooks/held-responses.ts`): admitted, it goes out with the verdict's
 * headers; refused, it is replaced by the 429, as if the read had never run. Only safe methods
 * on routes that need a key, and only for a key whose latest request was admitted: requests
 * without a valid key, and keys over their limit or banned, reach the store only once admitted.
 * Routes do not know.
 */
export class SpeculativeReads {
  readonly #pending = new WeakMap<FastifyRequest, Maybe<Verdict>>()

  /**
   * Whether a request may run before its verdict: `needsKey`, its route needs a key;
   * `refusedLately`, its key's latest request was refused.
   */
  mayStart(method: string, needsKey: boolean, refusedLately: boolean): boolean {
    return !refusedLately && (method === 'GET' || method === 'HEAD') && needsKey
  }

  /** The request runs on; its response waits for `verdict`. */
  holdUntil(request: FastifyRequest, verdict: Maybe<Verdict>): void {
    this.#pending.set(request, verdict)
  }

  /** The verdict the request's response waits for, handed over once; undefined when it waits for none. */
  release(request: FastifyRequest): Maybe<Verdict> | undefined {
    const verdict = this.#pending.get(request)
    if (verdict !== undefined) this.#pending.delete(request)
    return verdict
  }
}
