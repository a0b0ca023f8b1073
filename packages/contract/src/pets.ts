import Type, { type Static } from 'typebox'
import { PositiveInt64 } from './int64/values.ts'
import { DOCUMENTED_ONLY } from './json-schema.ts'

export const PET_STATUSES = ['available', 'pending', 'sold'] as const

export const PetStatus = Type.Enum(PET_STATUSES, {
  description: 'Availability status',
  'x-rule': 'must be one of available, pending, sold'
})
export type PetStatus = Static<typeof PetStatus>

export const DEFAULT_PET_STATUS: PetStatus = 'available'
export const PET_NAME_MAX_LENGTH = 200

export const PetName = Type.String({
  minLength: 1,
  maxLength: PET_NAME_MAX_LENGTH,
  // Not blank: some character outside Unicode White_Space and U+FEFF (JavaScript's \\s lacks U+0085).
  pattern: '[^\\s\\u0085]',
  description:
    "The animal's name: 1 to 200 characters (Unicode code points), not only white space (Unicode White_Space or U+FEFF), valid Unicode",
  'x-rule': 'must be a string of 1 to 200 characters that is not only white space'
})

export const NewPet = Type.Object(
  {
    name: PetName,
    categoryId: PositiveInt64({ description: 'Identifier of the category the animal belongs to' }),
    status: Type.Optional(
      Type.Enum(PET_STATUSES, {
        description: 'Availability status; `available` when omitted',
        default: DEFAULT_PET_STATUS,
        'x-rule': 'must be one of available, pending, sold'
      })
    )
  },
  { additionalProperties: false, description: 'Request body for creating an animal' }
)
export type NewPet = Static<typeof NewPet>

export const Pet = Type.Object(
  {
    id: PositiveInt64({ description: 'Unique identifier, assigned by the service on creation' }),
    name: PetName,
    categoryId: PositiveInt64({ description: 'Identifier of the category the animal belongs to' }),
    status: PetStatus
  },
  { additionalProperties: false, description: 'An animal as returned' }
)
export type Pet = Static<typeof Pet>

export const PAGE_LIMIT_MIN = 1
export const PAGE_LIMIT_MAX = 100
export const PAGE_LIMIT_DEFAULT = 20

export const Pets = Type.Array(Pet, { maxItems: PAGE_LIMIT_MAX, description: 'A page of animals in ascending id order, with no envelope' })
export type Pets = Static<typeof Pets>

export const ListPetsQuery = Type.Object(
  {
    limit: Type.Optional(
      Type.Integer({
        format: 'int32',
        minimum: PAGE_LIMIT_MIN,
        maximum: PAGE_LIMIT_MAX,
        default: PAGE_LIMIT_DEFAULT,
        description: 'Page size: a plain decimal integer from 1 to 100',
        'x-rule': 'must be a plain decimal integer from 1 to 100'
      })
    ),
    status: Type.Optional(
      Type.Enum(PET_STATUSES, { description: 'Only animals in this status', 'x-rule': 'must be one of available, pending, sold' })
    ),
    cursor: Type.Optional(
      Type.String({
        description: 'Opaque cursor from the `next` link of the previous page; valid only with the same `status` filter',
        'x-rule': 'must be a cursor from a next link',
        // Documented, not enforced by the schema: any other value answers 400 invalid_cursor.
        [DOCUMENTED_ONLY]: { maxLength: 128, pattern: '^[A-Za-z0-9_-]+$' }
      })
    )
  },
  { additionalProperties: false }
)
export type ListPetsQuery = Static<typeof ListPetsQuery>

/** The query of an operation that takes no query parameters: any given is refused, as on every operation. */
export const NoQuery = Type.Object({}, { additionalProperties: false })

export const PetIdParams = Type.Object({
  petId: PositiveInt64({ description: 'The identifier of the animal' })
})
export type PetIdParams = Static<typeof PetIdParams>
