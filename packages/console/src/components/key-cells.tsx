import type { Key } from '@animal-store/contract'
import { keyTitle } from '../key-state.ts'
import { PLAN_LABELS } from '../labels.ts'
import { keyHref } from '../routes.ts'

/** The first cells of a key's row in every table: its name (the row's header, a link to its page), its id and its plan. */
export function KeyCells({ keyData }: { keyData: Pick<Key, 'id' | 'name' | 'plan'> }) {
  return (
    <>
      <th scope="row">
        <a href={keyHref(keyData.id)}>{keyTitle(keyData)}</a>
      </th>
      <td>
        <code>{keyData.id}</code>
      </td>
      <td>{PLAN_LABELS[keyData.plan]}</td>
    </>
  )
}
