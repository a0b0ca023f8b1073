import type { Key } from '@animal-store/contract'
import { Fragment } from 'preact'
import { keyTitle } from '../keys/state.ts'
import { planLabel, usePlanList } from '../plans/context.ts'
import { keyHref } from '../routes.ts'

/** The first cells of a key's row in every table: its name (the row's header, a link to its page), its id and its plan. */
export function KeyCells({ keyData }: { keyData: Pick<Key, 'id' | 'name' | 'plan'> }) {
  const plans = usePlanList()
  return (
    <>
      <th scope="row">
        <a href={keyHref(keyData.id)}>{keyTitle(keyData)}</a>
      </th>
      <td>
        <code>{keyData.id}</code>
      </td>
      <td>{planLabel(plans, keyData.plan)}</td>
    </>
  )
}

/** A key's scopes as the API names them (`pets:read`, `pets:write`), or "none". */
export function Scopes({ scopes }: { scopes: Key['scopes'] }) {
  if (scopes.length === 0) return <>none</>
  return (
    <>
      {scopes.map((scope, index) => (
        <Fragment key={scope}>
          {index > 0 && ', '}
          <code>{scope}</code>
        </Fragment>
      ))}
    </>
  )
}
