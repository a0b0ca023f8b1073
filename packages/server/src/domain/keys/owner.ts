import type { CustomerWithKeys } from '../../storage/customers/types.ts'
import type { ApiKeyRecord, NewCustomer } from '../../storage/keys/types.ts'
import type { Actor, RequestOrigin } from '../actor.ts'
import { auditEntry } from '../audit/log.ts'
import { CustomerNotFoundError } from '../customers/errors.ts'
import { customerEvent } from '../customers/events.ts'
import { generateCustomerId } from '../customers/service.ts'
import type { newKeyCustomer } from './changes.ts'
import { KeyInputError } from './errors.ts'

/** What a new key runs under (its customer's), and the customer of its own to make with it, if any. */
export interface KeyOwner {
  fields: Pick<ApiKeyRecord, 'customerId' | 'counterId' | 'plan' | 'perMinute' | 'perDay' | 'perMonth'>
  newCustomer: NewCustomer | undefined
}

/**
 * The owner of the key `key` about to be made: the customer `choice` names (an unknown one is bad
 * input), or a customer of the key's own named after it, counting under the key's id as an
 * upgrade makes one (see ADOPT_KEYS).
 */
export async function keyOwner(
  choice: ReturnType<typeof newKeyCustomer>,
  key: { id: string; name: string | null },
  customers: { find(id: string): Promise<CustomerWithKeys> },
  change: { actor: Actor; origin: RequestOrigin; now: number }
): Promise<KeyOwner> {
  if ('customerId' in choice) {
    const found = await customers.find(choice.customerId).catch((error: unknown) => {
      if (!(error instanceof CustomerNotFoundError)) throw error
      throw new KeyInputError('customerId', (t) => `${t('customerId')} names no customer (got ${JSON.stringify(choice.customerId)})`)
    })
    const { id: customerId, counterId, plan, perMinute, perDay, perMonth } = found
    return { fields: { customerId, counterId, plan, perMinute, perDay, perMonth }, newCustomer: undefined }
  }
  const { actor, origin, now } = change
  const customerId = generateCustomerId()
  // `keys create --plan` takes no monthly quota: with numbers of its own the customer has none, without them its plan's applies.
  const own = { ...choice, perMonth: null }
  const record = { id: customerId, name: key.name || key.id, externalId: null, ...own, counterId: key.id, createdAt: now }
  return {
    fields: { customerId, counterId: key.id, ...own },
    newCustomer: { record, audit: auditEntry(customerEvent('customer.create', actor, record, now), origin) }
  }
}
