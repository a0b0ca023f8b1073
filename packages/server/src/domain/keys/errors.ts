import { InputError } from '../input-error.ts'

/** The fields of a key a caller sets, named as in the operator API's JSON bodies. */
export type KeyField = 'customerId' | 'plan' | 'name' | 'perMinute' | 'perDay' | 'scopes' | 'expiresAt' | 'graceSeconds'

/** What a message names: a field, or `noExpiry`, the request for no expiry (`expiresAt: null`). */
export type KeyTerm = KeyField | 'noExpiry'

/** How a caller names a term in its own words (the CLI: by its flags). */
export type TermNamer = (term: KeyTerm) => string

const apiTerm: TermNamer = (term) => (term === 'noExpiry' ? 'expiresAt: null' : term)

/** Input the key service refuses, naming the field at fault (null: the input as a whole, e.g. nothing to change). */
export class KeyInputError extends InputError<KeyField, KeyTerm> {
  override name = 'KeyInputError'

  constructor(field: KeyField | null, text: (term: TermNamer) => string) {
    super(field, text, apiTerm)
  }
}

/** No key has this id. */
export class KeyNotFoundError extends Error {
  override name = 'KeyNotFoundError'
  readonly id: string

  constructor(id: string) {
    // A path parameter can be long: the message shows enough of it to recognise.
    super(`no key has id ${JSON.stringify(id.length > 100 ? `${id.slice(0, 100)}...` : id)}`)
    this.id = id
  }
}

/** The key is revoked, and a revoked key cannot be changed or rotated (revoking it again succeeds). */
export class KeyRevokedError extends Error {
  override name = 'KeyRevokedError'
  readonly id: string

  constructor(id: string, operation: 'changed' | 'rotated') {
    super(`key ${id} is revoked; a revoked key cannot be ${operation}`)
    this.id = id
  }
}
