/**
 * Input a service refuses: `field` is the one at fault (null when the input as a whole is). The
 * message names terms as the operator API's JSON bodies do; `describe` names them as another
 * caller does (the CLI: by its flags).
 */
export class InputError<Field extends string, Term extends string = Field> extends Error {
  readonly field: Field | null
  readonly #text: (term: (term: Term) => string) => string

  constructor(field: Field | null, text: (term: (term: Term) => string) => string, apiTerm: (term: Term) => string) {
    super(text(apiTerm))
    this.field = field
    this.#text = text
  }

  /** The message with every term named by `term`. */
  describe(term: (term: Term) => string): string {
    return this.#text(term)
  }
}
