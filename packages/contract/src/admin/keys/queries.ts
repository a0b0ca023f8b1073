import Type, { type Static } from 'typebox'
import { DOCUMENTED_ONLY } from '../../json-schema.ts'
import { AdminPageLimit, PageCursor } from '../paging.ts'
import { PlanId } from '../plans/schemas.ts'
import { CUSTOMER_ID_PATTERN, KEY_ID_PATTERN, KEY_NAME_MAX_LENGTH, KEY_NAME_RULE } from './schemas.ts'

// The parameters that name keys: a key's id in a path, and the filters of the key list.

export const KEY_STATES = ['active', 'revoked', 'expired', 'banned'] as const
export type KeyState = (typeof KEY_STATES)[number]

export const KeyIdParams = Type.Object({
  id: Type.String({
    description: "The key's id",
    // Documented, not enforced: an id of any other shape names no key, and is answered 404.
    [DOCUMENTED_ONLY]: { pattern: KEY_ID_PATTERN, maxLength: 20 }
  })
})
export type KeyIdParams = Static<typeof KeyIdParams>

export const ListKeysQuery = Type.Object(
  {
    search: Type.Optional(
      Type.String({
        maxLength: KEY_NAME_MAX_LENGTH,
        pattern: '^[^\\x00-\\x1F\\x7F-\\x9F]*$',
        description: 'Only keys whose id, prefix or name contains this text, in any case',
        'x-rule': KEY_NAME_RULE
      })
    ),
    plan: Type.Optional(PlanId('Only keys on this plan')),
    customer: Type.Optional(
      Type.String({
        pattern: CUSTOMER_ID_PATTERN,
        maxLength: 20,
        description: "Only this customer's keys",
        'x-rule': 'must be a customer id (cus_ and 16 letters or digits)'
      })
    ),
    state: Type.Optional(
      Type.Enum(KEY_STATES, {
        description: 'Only keys in this state: active (usable now), revoked, expired, or banned (now)',
        'x-rule': `must be one of ${KEY_STATES.join(', ')}`
      })
    ),
    limit: Type.Optional(AdminPageLimit),
    cursor: Type.Optional(PageCursor)
  },
  { additionalProperties: false }
)
export type ListKeysQuery = Static<typeof ListKeysQuery>
