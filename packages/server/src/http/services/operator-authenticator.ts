import { ApiError } from '../../domain/api-error.ts'
import { looksLikeKey } from '../../domain/keys/secret.ts'
import type { OperatorService } from '../../domain/operators/service.ts'
import type { OperatorRecord } from '../../storage/operators/types.ts'

/** A request's sign-in: the operator, or the 401 that refuses it and whether a token was tried (a failed sign-in). */
export type OperatorAuth = { ok: true; operator: OperatorRecord } | { ok: false; error: ApiError; tokenTried: boolean }

const REALM = 'Bearer realm="animal-store-admin"'
const BEARER = /^Bearer +(\S+) *$/i

function refuse(message: string, tokenTried: boolean): OperatorAuth {
  const challenge = tokenTried ? `${REALM}, error="invalid_token", error_description="${message}"` : REALM
  return { ok: false, error: new ApiError('unauthorized', message, { 'www-authenticate': challenge }), tokenTried }
}

/** Resolves `Authorization: Bearer <operator token>` to an active operator, or to the 401 that refuses it. */
export class OperatorAuthenticator {
  readonly #operators: Pick<OperatorService, 'authenticate'>

  constructor(operators: Pick<OperatorService, 'authenticate'>) {
    this.#operators = operators
  }

  async authenticate(header: string | undefined): Promise<OperatorAuth> {
    if (header === undefined || header === '') return refuse('missing Authorization: Bearer <operator token>', false)
    const match = BEARER.exec(header)
    if (match === null) return refuse('the Authorization header must be: Bearer <operator token>', /^bearer\b/i.test(header))
    const token = match[1]!
    // Never looked up among operators: an API key signs in to nothing here.
    if (looksLikeKey(token)) return refuse('an API key is not an operator token: create one with animal-store operators create', true)
    const operator = await this.#operators.authenticate(token)
    return operator === undefined ? refuse('the operator token is not valid (unknown or revoked)', true) : { ok: true, operator }
  }
}
