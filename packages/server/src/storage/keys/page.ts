/** Which keys a page of the operator API's key list holds; every filter given must match. */
export interface KeyPageQuery {
  /** Text the key's id, prefix or name contains, in lower case (names are compared folded to lower case). */
  search?: string | undefined
  plan?: string | undefined
  /** `live`: neither revoked nor expired at `now`; `revoked`; `expired`: not revoked, expired at `now`. */
  status?: 'live' | 'revoked' | 'expired' | undefined
  now: number
  /** Only keys of this customer. */
  customerId?: string | undefined
  /** Only keys whose customer's counters are these, or none of these (the banned now, which the counters know). */
  onlyCounters?: readonly string[] | undefined
  exceptCounters?: readonly string[] | undefined
  /** Only keys older than this one: created before it, or at the same moment with a smaller id. */
  before?: { createdAt: number; id: string } | undefined
  limit: number
}
