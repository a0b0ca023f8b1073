export type Route =
  | { screen: 'keys' }
  | { screen: 'key'; id: string }
  | { screen: 'customers' }
  | { screen: 'customer'; id: string }
  | { screen: 'plans' }
  | { screen: 'usage' }
  | { screen: 'bans' }
  | { screen: 'audit' }

/** A fragment's text as written, when it is not valid percent-encoding (`%E0`). */
function decoded(part: string): string {
  try {
    return decodeURIComponent(part)
  } catch {
    return part
  }
}

const given = (part: string | undefined): part is string => part !== undefined && part !== ''

// Routes live in the fragment (#/keys/key_...): the server serves one page at `/`, and a
// reload or a shared link opens the same screen.
export function parseRoute(hash: string): Route {
  const parts = hash.replace(/^#\/?/, '').split('/')
  switch (parts[0]) {
    case 'keys':
      return given(parts[1]) ? { screen: 'key', id: decoded(parts[1]) } : { screen: 'keys' }
    case 'customers':
      return given(parts[1]) ? { screen: 'customer', id: decoded(parts[1]) } : { screen: 'customers' }
    case 'plans':
    case 'usage':
    case 'bans':
    case 'audit':
      return { screen: parts[0] }
    default:
      return { screen: 'keys' }
  }
}

export const keyHref = (id: string): string => `#/keys/${encodeURIComponent(id)}`
export const customerHref = (id: string): string => `#/customers/${encodeURIComponent(id)}`
export const plansHref = '#/plans'
