import { InputError } from '../input-error.ts'

/** The fields of a customer a caller sets, named as in the operator API's JSON bodies. */
export type CustomerField = 'name' | 'plan' | 'externalId' | 'limits' | 'perMinute' | 'perDay' | 'perMonth'

/** What a message names: a field, or `noMonthlyQuota`, the way to ask for none (`perMonth: null`). */
export type CustomerTerm = CustomerField | 'noMonthlyQuota'

/** How a caller names a term in its own words (the CLI: by its flags). */
export type CustomerTermNamer = (term: CustomerTerm) => string

const apiTerm: CustomerTermNamer = (term) =>
  term === 'noMonthlyQuota' ? 'null' : term === 'perMinute' || term === 'perDay' || term === 'perMonth' ? `limits.${term}` : term

/** Input the customer service refuses, naming the field at fault (null: the input as a whole). */
export class CustomerInputError extends InputError<CustomerField, CustomerTerm> {
  override name = 'CustomerInputError'

  constructor(field: CustomerField | null, text: (term: CustomerTermNamer) => string) {
    super(field, text, apiTerm)
  }
}

const shownId = (id: string) => JSON.stringify(id.length > 100 ? `${id.slice(0, 100)}...` : id)

/** No customer has this id. */
export class CustomerNotFoundError extends Error {
  override name = 'CustomerNotFoundError'
  constructor(id: string) {
    super(`no customer has id ${shownId(id)}`)
  }
}

/** Another customer has this external id: it names one customer in the operator's other systems. */
export class CustomerExistsError extends Error {
  override name = 'CustomerExistsError'
  constructor(externalId: string) {
    super(`another customer has externalId ${shownId(externalId)}; an external id names one customer`)
  }
}
