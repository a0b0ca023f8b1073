export const KEYS_HELP = `Usage: animal-store keys <command> [options]

Every key belongs to a customer (animal-store customers --help): its plan, limits, windows and any
ban are the customer's, shared by all the customer's keys.

Commands:
  create (--customer <id> | --plan <plan id> [--per-minute N] [--per-day N]) [--name TEXT] [--scopes LIST] [--expires-at ISO8601] [--json]
         Creates a key and prints its secret once. --customer: a key for that customer (animal-store
         customers list), under its plan and limits. --plan: a key with a customer of its own on that
         plan; a new database has free, pro, business and enterprise (animal-store plans list). A
         custom plan (enterprise) needs --per-minute and --per-day; on other plans they override the
         plan's numbers. --scopes: what the key may do, comma-separated: pets:read (list, get),
         pets:write (create); both by default.
  list [--json]      Lists keys (never their secrets), each with its customer.
  update <id> [--plan P] [--per-minute N] [--per-day N] [--name TEXT] [--scopes LIST] [--expires-at ISO8601 | --no-expiry] [--json]
         Changes a key in place, same secret; every instance applies it within 5 seconds. Usage in the
         current windows and any ban are kept. --plan, --per-minute and --per-day change the key's
         customer, so all its keys; a new --plan drops earlier overrides unless given again.
         --scopes LIST replaces the key's scopes (--scopes '' leaves none).
  rotate <id> [--grace SECONDS] [--json]
         Issues a new secret for the key (same id, plan, usage and ban) and prints it once. The old
         secret keeps working for --grace seconds (default 86400, at most 2592000; 0 ends it at once).
  usage <id> [--json]
         The use of the minute and day windows by the key's customer, and any ban.
  revoke <id>        Revokes a key; every instance refuses it within 5 seconds (again: no change).
  unban <id>         Lifts a temporary ban of the key's customer (all its keys), if any.

ISO8601: a date (midnight UTC) or a date-time with Z or an offset, e.g. 2030-01-01T00:00:00Z.
Bad input, an unknown key or customer id, or a change to a revoked key exits with code 2 and
changes nothing.
`
