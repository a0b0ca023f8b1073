import Type, { type Static } from 'typebox'
import { NullableTimestamp, Timestamp } from './time.ts'

export const OPERATOR_ROLES = ['viewer', 'admin'] as const
export type OperatorRole = (typeof OPERATOR_ROLES)[number]

/** The operator a token belongs to, as `GET /admin/v1/me` answers. */
export const Operator = Type.Object(
  {
    id: Type.String({ pattern: '^op_[0-9A-Za-z]{16}$', maxLength: 19, description: "The operator's id" }),
    name: Type.String({ maxLength: 200, pattern: '^[^\\x00-\\x1F\\x7F-\\x9F]*$', description: "The operator's name" }),
    role: Type.Enum(OPERATOR_ROLES, { description: '`viewer` reads everything; `admin` also changes keys' }),
    createdAt: Timestamp('When the operator was created'),
    revokedAt: NullableTimestamp('When the operator was revoked; null: active')
  },
  { additionalProperties: false, description: 'An operator of the service, without their token' }
)
export type Operator = Static<typeof Operator>
