import { InputError } from '../input-error.ts'

/** The fields of a plan a caller sets, named as in the operator API's JSON bodies. */
export type PlanField = 'id' | 'name' | 'limits' | 'perMinute' | 'perDay' | 'perMonth'

/** What a message names: a field, or `noMonthlyQuota`, the way to ask for none (`perMonth: null`). */
export type PlanTerm = PlanField | 'noMonthlyQuota'

/** How a caller names a term in its own words (the CLI: by its flags). */
export type PlanTermNamer = (term: PlanTerm) => string

const apiTerm: PlanTermNamer = (term) =>
  term === 'noMonthlyQuota' ? 'null' : term === 'perMinute' || term === 'perDay' || term === 'perMonth' ? `limits.${term}` : term

/** Input the plan service refuses, naming the field at fault (null: the input as a whole). */
export class PlanInputError extends InputError<PlanField, PlanTerm> {
  override name = 'PlanInputError'

  constructor(field: PlanField | null, text: (term: PlanTermNamer) => string) {
    super(field, text, apiTerm)
  }
}

const shownId = (id: string) => JSON.stringify(id.length > 100 ? `${id.slice(0, 100)}...` : id)

/** No plan has this id. */
export class PlanNotFoundError extends Error {
  override name = 'PlanNotFoundError'
  constructor(id: string) {
    super(`no plan has id ${shownId(id)}`)
  }
}

/** A plan with this id exists already. */
export class PlanExistsError extends Error {
  override name = 'PlanExistsError'
  constructor(id: string) {
    super(`a plan with id ${shownId(id)} exists already`)
  }
}

/** The change would strand what is on the plan: it is in use, or keys on it have no numbers of their own. */
export class PlanInUseError extends Error {
  override name = 'PlanInUseError'
}
