import Type, { type Static } from 'typebox'
import { DOCUMENTED_ONLY } from '../../json-schema.ts'
import { PlanId } from '../plans/schemas.ts'
import { Count, NullableTimestamp, Timestamp } from '../time.ts'

export const KEY_ID_PATTERN = '^key_[0-9A-Za-z]{16}$'
/** A customer's id, which a key names. */
export const CUSTOMER_ID_PATTERN = '^cus_[0-9A-Za-z]{16}$'
export const KEY_NAME_MAX_LENGTH = 200
/** The longest grace a rotation gives the replaced secret: 30 days. */
export const MAX_GRACE_SECONDS = 30 * 86_400
export const DEFAULT_GRACE_SECONDS = 86_400

/** What a key may do: `pets:read` (listPets, getPet) and `pets:write` (createPet); both unless told otherwise. */
export const SCOPES = ['pets:read', 'pets:write'] as const
export type Scope = (typeof SCOPES)[number]

const Scopes = (description: string) =>
  Type.Array(Type.Enum(SCOPES), {
    uniqueItems: true,
    maxItems: SCOPES.length,
    description,
    'x-rule': `must be a list of distinct scopes, each one of ${SCOPES.join(', ')}`
  })

const LIMIT_RULE = 'must be a whole number of at least 1'
export const KEY_NAME_RULE = `must be at most ${KEY_NAME_MAX_LENGTH} characters with no control characters`

const Plan = PlanId
const Limit = (description: string) =>
  Type.Integer({ format: 'int64', minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description, 'x-rule': LIMIT_RULE })
// No C0 or C1 control character (Unicode Cc): names are shown in tables and terminals.
const KeyName = (description: string) =>
  Type.String({ maxLength: KEY_NAME_MAX_LENGTH, pattern: '^[^\\x00-\\x1F\\x7F-\\x9F]*$', description, 'x-rule': KEY_NAME_RULE })

export const KeyLimits = Type.Object(
  {
    perMinute: Limit('Requests allowed per UTC minute'),
    perDay: Limit('Requests allowed per UTC day'),
    perMonth: Type.Union([Limit('Requests allowed per UTC calendar month'), Type.Null()], {
      description: 'Requests allowed per UTC calendar month; null: no monthly quota'
    })
  },
  {
    additionalProperties: false,
    description: "The limits the key runs under, its customer's: the customer's own numbers where it has them, else its plan's"
  }
)

/** An API key as operators see it: never its secret. The element of `keys list --json`, plus `lastUsedAt`. */
export const Key = Type.Object(
  {
    id: Type.String({ pattern: KEY_ID_PATTERN, maxLength: 20, description: "The key's id (not a secret)" }),
    prefix: Type.String({
      pattern: '^as_live_[0-9A-Za-z]{4}$',
      maxLength: 12,
      description: 'The first characters of the secret, safe to show'
    }),
    name: Type.Union([KeyName('A name for people'), Type.Null()], { description: 'A name for people; null when none was given' }),
    customerId: Type.String({
      pattern: CUSTOMER_ID_PATTERN,
      maxLength: 20,
      description: 'The customer the key belongs to, whose plan, limits, windows and ban it shares'
    }),
    plan: Plan("The key's customer's plan"),
    limits: KeyLimits,
    scopes: Scopes('What the key may do: pets:read (list and get animals), pets:write (create them)'),
    createdAt: Timestamp('When the key was created'),
    expiresAt: NullableTimestamp('When the key stops working; null: never'),
    revokedAt: NullableTimestamp('When the key was revoked; null: not revoked'),
    previousSecretExpiresAt: NullableTimestamp('When the secret replaced by the latest rotation stops working, while it still works'),
    bannedUntil: NullableTimestamp("When the temporary ban of the key's customer ends; null: not banned"),
    usage: Type.Object(
      {
        minute: Count('Requests taken in the current UTC minute'),
        day: Count('Requests taken in the current UTC day'),
        month: Count('Requests taken in the current UTC calendar month (0 without a monthly quota: the month is not counted)')
      },
      { additionalProperties: false, description: "Requests taken in the current windows by all the customer's keys" }
    ),
    lastUsedAt: NullableTimestamp('The start of the last UTC minute in which the key was used; null: never')
  },
  { additionalProperties: false, description: 'An API key, without its secret' }
)
export type Key = Static<typeof Key>

const Secret = Type.String({
  pattern: '^as_live_[0-9A-Za-z]{43}$',
  maxLength: 51,
  description: 'The secret: shown this once, only its SHA-256 hash is stored'
})

/** A key with its secret: the answer of a create or a rotation, and nothing else. */
export const KeyWithSecret = Type.Object(
  { ...Key.properties, key: Secret },
  { additionalProperties: false, description: 'An API key with its secret, shown this once' }
)
export type KeyWithSecret = Static<typeof KeyWithSecret>

export const Keys = Type.Array(Key, { maxItems: 100, description: 'A page of keys, newest first, with no envelope' })

/** The most keys `listBans` answers, the soonest bans to end first. */
export const MAX_BANNED_KEYS = 1000

export const BannedKeys = Type.Array(Key, {
  maxItems: MAX_BANNED_KEYS,
  description: `Every key banned now (at most ${MAX_BANNED_KEYS}), the soonest ban to end first, with no envelope`
})

export const NewKey = Type.Object(
  {
    customerId: Type.Optional(
      Type.String({
        maxLength: 64,
        description: 'The customer the key is for (`listCustomers`); give this or `plan`',
        'x-rule': 'must be the id of a customer',
        // Documented, not enforced: the key service names the field and the customer in its refusal.
        [DOCUMENTED_ONLY]: { pattern: CUSTOMER_ID_PATTERN }
      })
    ),
    plan: Type.Optional(
      Plan(
        "Instead of `customerId`: a customer of the key's own is made on this plan; a custom plan, such as enterprise, needs perMinute and perDay"
      )
    ),
    name: Type.Optional(KeyName('A name for people')),
    perMinute: Type.Optional(Limit("With `plan`: requests per minute, instead of the plan's")),
    perDay: Type.Optional(Limit("With `plan`: requests per day, instead of the plan's")),
    scopes: Type.Optional(Scopes('What the key may do; both scopes unless given')),
    expiresAt: Type.Optional(Timestamp('When the key stops working; must be in the future'))
  },
  { additionalProperties: false, description: 'A key to create, for a customer (`customerId`) or with a customer of its own (`plan`)' }
)
export type NewKey = Static<typeof NewKey>

export const KeyPatch = Type.Object(
  {
    plan: Type.Optional(Plan("A new plan for the key's customer (all its keys): its own numbers are dropped unless given again")),
    perMinute: Type.Optional(Limit("Requests per minute for the key's customer, instead of the plan's")),
    perDay: Type.Optional(Limit("Requests per day for the key's customer, instead of the plan's")),
    name: Type.Optional(KeyName('A name for people')),
    scopes: Type.Optional(Scopes('What the key may do from now on; every instance applies it within 5 seconds')),
    expiresAt: Type.Optional(
      Type.Union([Timestamp('When the key stops working; must be in the future'), Type.Null()], {
        description: 'When the key stops working (in the future); null: never',
        'x-rule': 'must be an ISO 8601 date-time with a time zone, or null for no expiry'
      })
    )
  },
  { additionalProperties: false, description: 'Changes to a key, in place (same secret); at least one field. Usage and any ban stay' }
)
export type KeyPatch = Static<typeof KeyPatch>

export const KeyRotation = Type.Object(
  {
    graceSeconds: Type.Optional(
      Type.Integer({
        format: 'int32',
        minimum: 0,
        maximum: MAX_GRACE_SECONDS,
        default: DEFAULT_GRACE_SECONDS,
        description: 'How long the replaced secret keeps working, in seconds (0 ends it at once)',
        'x-rule': `must be a whole number of seconds from 0 to ${MAX_GRACE_SECONDS}`
      })
    )
  },
  { additionalProperties: false, description: 'How to rotate: the grace of the replaced secret' }
)
export type KeyRotation = Static<typeof KeyRotation>
