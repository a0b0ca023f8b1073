import type { Pet } from '@animal-store/contract'

/** The first response to an idempotent request, kept to be replayed. */
export interface StoredResponse {
  status: number
  /** The exact JSON text of the body. */
  body: string
  location: string | null
}

/** An Idempotency-Key is scoped to the API key that sent it. */
export interface IdempotencyScope {
  apiKeyId: string
  key: string
}

/** Completes a claim in the same transaction as the write it guards. */
export interface IdempotencyCompletion {
  scope: IdempotencyScope
  /** The claim's token: the completion applies only while the claim is still this request's. */
  token: string
  respond(pet: Pet): StoredResponse
}

export type IdempotencyClaim =
  | { state: 'claimed'; token: string }
  | { state: 'in_flight'; fingerprint: string }
  | { state: 'completed'; fingerprint: string; response: StoredResponse }

export interface IdempotencyStore {
  /**
   * Atomically, across every instance: claims the scope for a request whose body has this
   * fingerprint, unless a live record holds it. A completed record is live when created at or
   * after `expiredBefore`; an unfinished claim while claimed at or after `staleBefore` (an
   * abandoned claim, e.g. after a crash, can then be taken over). Returns the claim's token, or
   * the live record.
   */
  claim(
    scope: IdempotencyScope,
    fingerprint: string,
    now: number,
    limits: { expiredBefore: number; staleBefore: number }
  ): Promise<IdempotencyClaim>
  /** Drops this request's unfinished claim (its write failed), so the key can be used again. */
  release(scope: IdempotencyScope, token: string): Promise<void>
  /** Deletes records created before `before`; returns how many. */
  purge(before: number): Promise<number>
}

/** The claim was taken over (it went stale) before its write committed; nothing was written. */
export class IdempotencyClaimLostError extends Error {
  override name = 'IdempotencyClaimLostError'
}
