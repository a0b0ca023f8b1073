// Customers' names for the keys' tables and pages, which know a key's customer only by its id.
// Each is asked once per sign-in (a sign-in makes a new api, so a new cache), not on every
// refresh: a rename made here is remembered at once, one made elsewhere shows on the next sign-in.
import type { Customer } from '@animal-store/contract'
import { useEffect, useState } from 'preact/hooks'
import type { OperatorApi } from '../api/operations.ts'
import { useSession } from '../session.ts'

type Names = Map<string, Promise<string | null>>
const caches = new WeakMap<OperatorApi, Names>()

function cacheOf(api: OperatorApi): Names {
  let cache = caches.get(api)
  if (cache === undefined) {
    cache = new Map()
    caches.set(api, cache)
  }
  return cache
}

/** After a create or an edit here: the tables show the new name without asking again. */
export function rememberCustomer(api: OperatorApi, customer: Pick<Customer, 'id' | 'name'>): void {
  cacheOf(api).set(customer.id, Promise.resolve(customer.name))
}

function nameOf(api: OperatorApi, id: string): Promise<string | null> {
  const cache = cacheOf(api)
  let name = cache.get(id)
  if (name === undefined) {
    // A failure is not remembered: the next screen that needs the name asks again.
    name = api.getCustomer(id).then(
      (customer) => customer.name,
      () => {
        cache.delete(id)
        return null
      }
    )
    cache.set(id, name)
  }
  return name
}

/** The names of the customers `ids` name, as they arrive; an id whose name is not known yet is absent. */
export function useCustomerNames(ids: readonly string[]): ReadonlyMap<string, string> {
  const { api } = useSession()
  const wanted = [...new Set(ids)].sort().join(' ')
  const [names, setNames] = useState<ReadonlyMap<string, string>>(() => new Map())
  useEffect(() => {
    let current = true
    const lookups = wanted === '' ? [] : wanted.split(' ').map(async (id) => [id, await nameOf(api, id)] as const)
    void Promise.all(lookups).then((pairs) => {
      if (current) setNames(new Map(pairs.flatMap(([id, name]) => (name === null ? [] : [[id, name] as const]))))
    })
    return () => {
      current = false
    }
  }, [api, wanted])
  return names
}
