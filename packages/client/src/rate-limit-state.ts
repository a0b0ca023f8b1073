/** One window of the IETF `RateLimit` / `RateLimit-Policy` fields, e.g. the minute, the day or the month. */
export interface RateLimitHeaderWindow {
  /** The policy name the service gives it (`minute`, `day`, and `month` for a customer with a monthly quota). */
  name: string
  /** Requests left in this window (`r`). */
  remaining: number | undefined
  /** Seconds until this window ends (`t`): a delay, not a timestamp. */
  resetSeconds: number | undefined
  /** Requests the window allows (`q` of `RateLimit-Policy`). */
  quota: number | undefined
  /** Length of the window in seconds (`w` of `RateLimit-Policy`). */
  windowSeconds: number | undefined
}

/** The rate-limit headers of the latest response that had them. */
export interface RateLimitState {
  /** `X-RateLimit-Limit`: the limit of the window in force (the one with the fewest requests left). */
  limit: number | undefined
  /** `X-RateLimit-Remaining`: requests left in that window. */
  remaining: number | undefined
  /** `X-RateLimit-Reset`: Unix time in seconds at which that window ends. */
  reset: number | undefined
  /** Every window named by `RateLimit` and `RateLimit-Policy`. */
  windows: RateLimitHeaderWindow[]
}

interface ListMember {
  name: string
  params: Map<string, string>
}

/** Splits on `separator` outside double-quoted strings. */
function splitOutsideQuotes(text: string, separator: string): string[] {
  const parts: string[] = []
  let current = ''
  let quoted = false
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!
    if (quoted && char === '\\') {
      current += char + (text[i + 1] ?? '')
      i++
      continue
    }
    if (char === '"') quoted = !quoted
    if (char === separator && !quoted) {
      parts.push(current)
      current = ''
    } else {
      current += char
    }
  }
  parts.push(current)
  return parts
}

function unquote(text: string): string {
  const trimmed = text.trim()
  if (trimmed.length >= 2 && trimmed.startsWith('"') && trimmed.endsWith('"')) return trimmed.slice(1, -1).replace(/\\(.)/g, '$1')
  return trimmed
}

/** A Structured Field list (RFC 9651) of items with parameters, read leniently: `"minute";r=59;t=42, "day";r=880`. */
export function parseStructuredList(value: string): ListMember[] {
  return splitOutsideQuotes(value, ',')
    .filter((member) => member.trim() !== '')
    .map((member) => {
      const [item = '', ...params] = splitOutsideQuotes(member, ';')
      return {
        name: unquote(item),
        params: new Map(
          params.map((param) => {
            const equals = param.indexOf('=')
            return equals < 0 ? [param.trim(), '?1'] : [param.slice(0, equals).trim(), unquote(param.slice(equals + 1))]
          })
        )
      }
    })
}

function integer(value: string | null | undefined): number | undefined {
  if (value === null || value === undefined || !/^\s*-?[0-9]+\s*$/.test(value)) return undefined
  return Number(value)
}

/** The rate-limit state carried by a response, or undefined when it carries none. */
export function readRateLimit(headers: Headers): RateLimitState | undefined {
  const state = headers.get('ratelimit')
  const policy = headers.get('ratelimit-policy')
  const limit = integer(headers.get('x-ratelimit-limit'))
  const remaining = integer(headers.get('x-ratelimit-remaining'))
  const reset = integer(headers.get('x-ratelimit-reset'))
  if (state === null && policy === null && limit === undefined && remaining === undefined && reset === undefined) return undefined

  const windows = new Map<string, RateLimitHeaderWindow>()
  const window = (name: string) => {
    let found = windows.get(name)
    if (found === undefined) {
      found = { name, remaining: undefined, resetSeconds: undefined, quota: undefined, windowSeconds: undefined }
      windows.set(name, found)
    }
    return found
  }
  for (const member of parseStructuredList(policy ?? '')) {
    const entry = window(member.name)
    entry.quota = integer(member.params.get('q'))
    entry.windowSeconds = integer(member.params.get('w'))
  }
  for (const member of parseStructuredList(state ?? '')) {
    const entry = window(member.name)
    entry.remaining = integer(member.params.get('r'))
    entry.resetSeconds = integer(member.params.get('t'))
  }
  return { limit, remaining, reset, windows: [...windows.values()] }
}
