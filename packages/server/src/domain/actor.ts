/**
 * Who makes a change: an operator of the operator API, or the OS user running the CLI. The
 * `actor` of an audit event (design.md §6).
 */
export interface Actor {
  type: 'operator' | 'cli'
  id: string
  name: string
}

/** What the transport knew of the request that made a change; every field null from the CLI. */
export interface RequestOrigin {
  /** The request's X-Request-Id. */
  requestId: string | null
  /** The client's address, past any trusted proxies. */
  remoteAddress: string | null
  userAgent: string | null
}

/** The origin of a change made at the CLI. */
export const CLI_ORIGIN: RequestOrigin = { requestId: null, remoteAddress: null, userAgent: null }
