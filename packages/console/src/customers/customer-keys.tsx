import type { Customer } from '@animal-store/contract'
import { Scopes } from '../components/key-cells.tsx'
import { ErrorAlert, Status } from '../components/notices.tsx'
import { Pager, TableFrame, usePages } from '../components/table-parts.tsx'
import { Time } from '../components/time.tsx'
import { useApiData } from '../hooks/use-api-data.ts'
import { keyState, keyTitle } from '../keys/state.ts'
import { STATE_LABELS } from '../labels.ts'
import { keyHref } from '../routes.ts'
import { useSession } from '../session.ts'

/**
 * The table "Keys" of a customer's page (listKeys with `customer`). Plan, limits and use are the
 * customer's, shown once above it, so each key's row holds only what is its own.
 */
export function CustomerKeys({ customer }: { customer: Pick<Customer, 'id'> }) {
  const { api } = useSession()
  const pages = usePages(customer.id)
  const keys = useApiData((signal) => api.listKeys({ customer: customer.id, cursor: pages.cursor }, signal), [customer.id, pages.cursor])
  const now = Date.now()
  return (
    <>
      <ErrorAlert message={keys.error} />
      <TableFrame label="Keys" busy={keys.loading}>
        <table>
          <caption class="visually-hidden">Keys</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">ID</th>
              <th scope="col">Scopes</th>
              <th scope="col">Created</th>
              <th scope="col">Last used</th>
              <th scope="col">State</th>
            </tr>
          </thead>
          <tbody>
            {(keys.data?.items ?? []).map((key) => (
              <tr key={key.id}>
                <th scope="row">
                  <a href={keyHref(key.id)}>{keyTitle(key)}</a>
                </th>
                <td>
                  <code>{key.id}</code>
                </td>
                <td>
                  <Scopes scopes={key.scopes} />
                </td>
                <td>
                  <Time value={key.createdAt} />
                </td>
                <td>
                  <Time value={key.lastUsedAt} fallback="never" />
                </td>
                <td>{STATE_LABELS[keyState(key, now)]}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableFrame>
      {keys.data === undefined && keys.error === null && <Status>Loading the customer's keys…</Status>}
      {keys.data?.items.length === 0 && <Status>The customer has no key yet.</Status>}
      <Pager
        label="Pages of the customer's keys"
        number={pages.number}
        hasNext={(keys.data?.next ?? null) !== null}
        onNext={() => keys.data?.next && pages.next(keys.data.next)}
        onPrevious={pages.previous}
      />
    </>
  )
}
