import Type, { type Static } from 'typebox'
import { AdminPageLimit, PageCursor } from './paging.ts'
import { Timestamp } from './time.ts'

export const AUDIT_ACTIONS = [
  'key.create',
  'key.update',
  'key.rotate',
  'key.revoke',
  'key.unban',
  'operator.create',
  'operator.revoke',
  'plan.create',
  'plan.update',
  'plan.delete',
  'customer.create',
  'customer.update',
  'customer.unban'
] as const
export type AuditAction = (typeof AUDIT_ACTIONS)[number]

export const ACTOR_TYPES = ['operator', 'cli'] as const
export const AUDIT_TARGET_TYPES = ['key', 'operator', 'plan', 'customer'] as const

// Free text of people and tools, without control characters (shown in tables, terminals and CSV).
const PRINTABLE = '^[^\\x00-\\x1F\\x7F]*$'
const Text = (maxLength: number, description: string) => Type.String({ maxLength, pattern: PRINTABLE, description })
const Nullable = (maxLength: number, description: string) => Type.Union([Text(maxLength, description), Type.Null()], { description })

/** Who made a change: an operator through the API, or a person at the CLI (named by their OS user). */
export const AuditActor = Type.Object(
  {
    type: Type.Enum(ACTOR_TYPES, { description: '`operator` (the operator API) or `cli` (the animal-store command)' }),
    id: Text(64, "The operator's id, or the OS user at the CLI"),
    name: Text(200, "The operator's name, or the OS user at the CLI")
  },
  { additionalProperties: false, description: 'Who made the change' }
)
export type AuditActor = Static<typeof AuditActor>

export const AuditTarget = Type.Object(
  {
    type: Type.Enum(AUDIT_TARGET_TYPES, { description: 'What was changed: a key, an operator, a plan or a customer' }),
    id: Text(64, 'Its id'),
    name: Nullable(200, 'Its name at the time; null when it has none')
  },
  { additionalProperties: false, description: 'What was changed' }
)

const Scalar = Type.Union(
  [Text(200, 'Text or a moment'), Type.Integer({ format: 'int64', minimum: 0, maximum: Number.MAX_SAFE_INTEGER }), Type.Null()],
  {
    description: 'A value of the field'
  }
)
const Change = Type.Object({ from: Scalar, to: Scalar }, { additionalProperties: false, description: 'The value before and after' })

/** The fields an update changed. Never a secret, token or hash. */
export const AuditChanges = Type.Object(
  {
    plan: Type.Optional(Change),
    perMinute: Type.Optional(Change),
    perDay: Type.Optional(Change),
    perMonth: Type.Optional(Change),
    name: Type.Optional(Change),
    expiresAt: Type.Optional(Change),
    scopes: Type.Optional(Change),
    externalId: Type.Optional(Change)
  },
  {
    additionalProperties: false,
    description:
      "For an update, each changed field from and to (null: none); `{}` for every other action. A key.update that changes the plan or numbers (its customer's) comes with the customer.update that made them"
  }
)
export type AuditChanges = Static<typeof AuditChanges>

export const AuditEvent = Type.Object(
  {
    id: Type.String({ pattern: '^[0-9]{1,19}$', maxLength: 19, description: "The event's id: a decimal number, larger for newer events" }),
    at: Timestamp('When the change was made'),
    actor: AuditActor,
    action: Type.Enum(AUDIT_ACTIONS, { description: 'What was done' }),
    target: AuditTarget,
    changes: AuditChanges,
    requestId: Nullable(128, 'The X-Request-Id of the operator API request; null from the CLI'),
    remoteAddress: Nullable(64, "The operator's address; null from the CLI"),
    userAgent: Nullable(512, "The operator's User-Agent; null from the CLI")
  },
  { additionalProperties: false, description: 'One change to a key or an operator' }
)
export type AuditEvent = Static<typeof AuditEvent>

export const AuditEvents = Type.Array(AuditEvent, { maxItems: 100, description: 'A page of audit events, newest first, with no envelope' })

export const ListAuditQuery = Type.Object(
  {
    actor: Type.Optional(
      Type.String({
        maxLength: 200,
        pattern: PRINTABLE,
        description: "Only changes by this actor: an operator's id or name, or a CLI user",
        'x-rule': 'must be at most 200 characters with no control characters'
      })
    ),
    target: Type.Optional(
      Type.String({
        maxLength: 64,
        pattern: PRINTABLE,
        description: 'Only changes to this key or operator, by id',
        'x-rule': 'must be at most 64 characters with no control characters'
      })
    ),
    action: Type.Optional(
      Type.Enum(AUDIT_ACTIONS, { description: 'Only this action', 'x-rule': `must be one of ${AUDIT_ACTIONS.join(', ')}` })
    ),
    from: Type.Optional(Timestamp('Only changes at or after this moment')),
    to: Type.Optional(Timestamp('Only changes before this moment')),
    limit: Type.Optional(AdminPageLimit),
    cursor: Type.Optional(PageCursor)
  },
  { additionalProperties: false }
)
export type ListAuditQuery = Static<typeof ListAuditQuery>
