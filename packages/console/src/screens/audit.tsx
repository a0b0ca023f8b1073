import type { AuditAction, AuditEvent, ListAuditQuery } from '@animal-store/contract'
import { useId, useState } from 'preact/hooks'
import { allPages } from '../api/operations.ts'
import { ExportCsv } from '../components/export-csv.tsx'
import { ErrorAlert, Status } from '../components/notices.tsx'
import { ScreenHeading } from '../components/screen-heading.tsx'
import { Pager, TableFrame, usePages } from '../components/table-parts.tsx'
import { Time } from '../components/time.tsx'
import { useApiData } from '../hooks/use-api-data.ts'
import { useDebounced } from '../hooks/timers.ts'
import { customerHref, keyHref, plansHref } from '../routes.ts'
import { AUDIT_ACTIONS } from '../labels.ts'
import { useSession, useView } from '../session.ts'
import { isoInZone, type Zone } from '../time.ts'

/**
 * `plan: free → pro; expiresAt: none → 2026-12-01T00:00:00Z; scopes: pets:read pets:write → pets:read`:
 * an update's changes, in a line (scopes are space-separated; none is empty).
 */
function changesText(event: AuditEvent, zone: Zone): string {
  // A customer's (or key's) numbers of null are its plan's, not none.
  const value = (field: string, v: string | number | null) =>
    v === null && (field === 'perMinute' || field === 'perDay')
      ? "the plan's"
      : v === null || (field === 'scopes' && v === '')
        ? 'none'
        : field === 'expiresAt' && typeof v === 'string'
          ? isoInZone(v, zone)
          : String(v)
  return Object.entries(event.changes)
    .map(([field, change]) => `${field}: ${value(field, change.from)} → ${value(field, change.to)}`)
    .join('; ')
}

const CSV_HEADER = [
  'Time',
  'Actor type',
  'Actor ID',
  'Actor',
  'Action',
  'Target type',
  'Target ID',
  'Target',
  'Changes',
  'Request ID',
  'Address',
  'User agent'
]

/** Every change to a key, a customer, a plan or an operator, newest first, filtered by actor, action and target. */
export function AuditScreen() {
  const { api } = useSession()
  const ids = useId()
  const [actor, setActor] = useState('')
  const [action, setAction] = useState<AuditAction | ''>('')
  const [target, setTarget] = useState('')
  const settled = useDebounced({ actor: actor.trim(), target: target.trim() }, 300)
  const filters: ListAuditQuery = { ...settled, ...(action === '' ? {} : { action }) }
  const filterKey = JSON.stringify(filters)
  const pages = usePages(filterKey)
  const events = useApiData((signal) => api.listAuditEvents({ ...filters, cursor: pages.cursor }, signal), [filterKey, pages.cursor])

  const exportEvents = async (zone: Zone) => ({
    header: CSV_HEADER,
    rows: (await allPages((cursor) => api.listAuditEvents({ ...filters, limit: 100, cursor }))).map((event) => [
      isoInZone(event.at, zone),
      event.actor.type,
      event.actor.id,
      event.actor.name,
      event.action,
      event.target.type,
      event.target.id,
      event.target.name,
      changesText(event, zone),
      event.requestId,
      event.remoteAddress,
      event.userAgent
    ])
  })

  return (
    <>
      <ScreenHeading>Audit</ScreenHeading>
      <div class="toolbar">
        <div class="filters">
          <label for={`${ids}-actor`}>Actor</label>
          <input
            id={`${ids}-actor`}
            value={actor}
            onInput={(event) => setActor(event.currentTarget.value)}
            aria-describedby={`${ids}-actor-hint`}
          />
          <span class="visually-hidden" id={`${ids}-actor-hint`}>
            An operator's id or name, or a CLI user
          </span>
          <label for={`${ids}-action`}>Action</label>
          <select id={`${ids}-action`} value={action} onChange={(event) => setAction(event.currentTarget.value as AuditAction | '')}>
            <option value="">All actions</option>
            {AUDIT_ACTIONS.map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </select>
          <label for={`${ids}-key`}>Key</label>
          <input
            id={`${ids}-key`}
            value={target}
            onInput={(event) => setTarget(event.currentTarget.value)}
            placeholder="key_… or cus_…"
            aria-describedby={`${ids}-key-hint`}
          />
          <span class="visually-hidden" id={`${ids}-key-hint`}>
            The id of a key, a customer, a plan or an operator
          </span>
        </div>
        <ExportCsv name="audit" load={exportEvents} />
      </div>
      <ErrorAlert message={events.error} />
      <TableFrame label="Audit log" busy={events.loading}>
        <AuditTable events={events.data?.items ?? []} />
      </TableFrame>
      {events.data === undefined && events.error === null && <Status>Loading the audit log…</Status>}
      {events.data?.items.length === 0 && <Status>No change matches these filters.</Status>}
      <Pager
        label="Pages of the audit log"
        number={pages.number}
        hasNext={(events.data?.next ?? null) !== null}
        onNext={() => events.data?.next && pages.next(events.data.next)}
        onPrevious={pages.previous}
      />
    </>
  )
}

function AuditTable({ events }: { events: readonly AuditEvent[] }) {
  const { zone } = useView()
  return (
    <table>
      <caption class="visually-hidden">Audit log</caption>
      <thead>
        <tr>
          <th scope="col">Time</th>
          <th scope="col">Actor</th>
          <th scope="col">Action</th>
          <th scope="col">Target</th>
          <th scope="col">Changes</th>
        </tr>
      </thead>
      <tbody>
        {events.map((event) => (
          <tr key={event.id}>
            <td>
              <Time value={event.at} />
            </td>
            <td>
              {event.actor.name} <span class="muted">({event.actor.type === 'cli' ? 'CLI' : 'operator'})</span>
            </td>
            <td>
              <code>{event.action}</code>
            </td>
            <td>
              <Target target={event.target} />
            </td>
            <td>{changesText(event, zone)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  )
}

// Every target type the contract has: a new one fails the typecheck until it is given a place (or none, as operators).
const TARGET_HREFS: Record<AuditEvent['target']['type'], ((id: string) => string) | null> = {
  key: keyHref,
  customer: customerHref,
  plan: () => plansHref,
  operator: null
}

/** A key or a customer links to its page, a plan to the Plans screen; a name, when there is one, comes with the id. */
function Target({ target }: { target: AuditEvent['target'] }) {
  const label = target.name ?? target.id
  const href = TARGET_HREFS[target.type]
  return (
    <>
      {href === null ? label : <a href={href(target.id)}>{label}</a>}
      {target.name !== null && <code class="muted"> {target.id}</code>}
    </>
  )
}
