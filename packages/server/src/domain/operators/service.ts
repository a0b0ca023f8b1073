import { OPERATOR_ROLES, type Operator, type OperatorRole } from '@animal-store/contract'
import type { Clock } from '../../base/clock.ts'
import type { OperatorRecord, OperatorStore } from '../../storage/operators/types.ts'
import { CLI_ORIGIN, type Actor, type RequestOrigin } from '../actor.ts'
import { auditEntry, type ChangeEvent } from '../audit/log.ts'
import { randomId, randomSecret, SECRET_LENGTH, sha256Hex } from '../secrets.ts'

/** Operator tokens have their own prefix: never mistaken for an API key (`as_live_`), by people or by secret scanners. */
const TOKEN_PREFIX = 'as_admin_'
const TOKEN_SHAPE = new RegExp(`^${TOKEN_PREFIX}[0-9A-Za-z]{${SECRET_LENGTH}}$`)
const ID_SHAPE = /^op_[0-9A-Za-z]{16}$/
const MAX_NAME_LENGTH = 200

/** True when the text has the shape of an operator token; anything else is refused before any lookup. */
function looksLikeOperatorToken(text: string): boolean {
  return TOKEN_SHAPE.test(text)
}

/** Input the operator service refuses; `field` is the one at fault. */
export class OperatorInputError extends Error {
  override name = 'OperatorInputError'
  readonly field: 'role' | 'name'

  constructor(field: 'role' | 'name', message: string) {
    super(message)
    this.field = field
  }
}

/** No operator has this id. */
export class OperatorNotFoundError extends Error {
  override name = 'OperatorNotFoundError'
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString())

/** An operator as the operator API and `operators list --json` show it: never the token nor its hash. */
export function viewOperator(operator: OperatorRecord): Operator {
  return {
    id: operator.id,
    name: operator.name,
    role: operator.role,
    createdAt: iso(operator.createdAt)!,
    revokedAt: iso(operator.revokedAt)
  }
}

function role(value: string): OperatorRole {
  if (!(OPERATOR_ROLES as readonly string[]).includes(value))
    throw new OperatorInputError('role', `role must be one of ${OPERATOR_ROLES.join(', ')} (got ${JSON.stringify(value)})`)
  return value as OperatorRole
}

function name(value: string): string {
  if (value.trim() === '' || /[\p{Cc}]/u.test(value) || !value.isWellFormed() || [...value].length > MAX_NAME_LENGTH)
    throw new OperatorInputError('name', `name must be 1 to ${MAX_NAME_LENGTH} characters, not blank, with no control characters`)
  return value
}

function operatorEvent(action: 'operator.create' | 'operator.revoke', actor: Actor, operator: OperatorRecord, at: number): ChangeEvent {
  return { action, actor, target: { type: 'operator', id: operator.id, name: operator.name }, changes: {}, at: new Date(at).toISOString() }
}

/**
 * The people who run the service and their tokens: created and revoked at the CLI, each change
 * audited in the same transaction; a token is shown once and only its SHA-256 hash is kept.
 */
export class OperatorService {
  readonly #store: OperatorStore
  readonly #clock: Clock

  constructor(store: OperatorStore, clock: Clock) {
    this.#store = store
    this.#clock = clock
  }

  async create(
    input: { role: string; name: string },
    actor: Actor,
    origin: RequestOrigin = CLI_ORIGIN
  ): Promise<{ operator: Operator; token: string }> {
    const now = this.#clock.now()
    const record: OperatorRecord = { id: randomId('op_'), name: name(input.name), role: role(input.role), createdAt: now, revokedAt: null }
    const token = randomSecret(TOKEN_PREFIX)
    await this.#store.create(record, sha256Hex(token), auditEntry(operatorEvent('operator.create', actor, record, now), origin))
    return { operator: viewOperator(record), token }
  }

  /** Every operator, oldest first, revoked ones included. */
  async list(): Promise<Operator[]> {
    return (await this.#store.list()).map(viewOperator)
  }

  /** Revokes the operator: their token is refused from the next request on, on every instance. Again: no change, not audited. */
  async revoke(id: string, actor: Actor, origin: RequestOrigin = CLI_ORIGIN): Promise<{ operator: Operator; changed: boolean }> {
    const now = this.#clock.now()
    const found = ID_SHAPE.test(id) ? await this.#store.get(id) : undefined
    if (found === undefined)
      throw new OperatorNotFoundError(`no operator has id ${JSON.stringify(id.length > 100 ? `${id.slice(0, 100)}...` : id)}`)
    const revoked = await this.#store.revoke(id, now, (operator) =>
      auditEntry(operatorEvent('operator.revoke', actor, operator, now), origin)
    )
    return { operator: viewOperator(revoked ?? (await this.#store.get(id)) ?? found), changed: revoked !== undefined }
  }

  /** The active operator `token` belongs to, or undefined (not a token, unknown, or revoked). Looked up on every call: no cache to outlive a revocation. */
  async authenticate(token: string): Promise<OperatorRecord | undefined> {
    if (!looksLikeOperatorToken(token)) return undefined
    const operator = await this.#store.findByHash(sha256Hex(token))
    return operator !== undefined && (operator.revokedAt === null || operator.revokedAt > this.#clock.now()) ? operator : undefined
  }
}
