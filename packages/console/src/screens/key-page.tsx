import type { Key } from '@animal-store/contract'
import { useState } from 'preact/hooks'
import { Scopes } from '../components/key-cells.tsx'
import { ErrorAlert, Status } from '../components/notices.tsx'
import { RangePicker } from '../components/usage/range-picker.tsx'
import { ScreenHeading } from '../components/screen-heading.tsx'
import { Time } from '../components/time.tsx'
import { useCustomerNames } from '../customers/names.ts'
import { UsageChart } from '../components/usage/chart.tsx'
import { useApiData } from '../hooks/use-api-data.ts'
import { useAction } from '../hooks/use-action.ts'
import { keyState, keyTitle } from '../keys/state.ts'
import { count, STATE_LABELS } from '../labels.ts'
import { limitsInWords } from '../limits.ts'
import { planLabel, usePlanList } from '../plans/context.ts'
import { customerHref } from '../routes.ts'
import { useSession, useView } from '../session.ts'
import { DEFAULT_RANGE, rangeQuery } from '../usage-range.ts'
import { EditKeyDialog, RevokeKeyDialog, RotateKeyDialog } from './key-dialogs.tsx'

type Open = 'edit' | 'rotate' | 'revoke' | null

/** A key's page: its details, its usage over time, and (for admins) what can be done to it. */
export function KeyPage({ id }: { id: string }) {
  const { api } = useSession()
  const key = useApiData((signal) => api.getKey(id, signal), [id])
  return (
    <>
      <ScreenHeading>{key.data === undefined ? id : keyTitle(key.data)}</ScreenHeading>
      <ErrorAlert message={key.error} />
      {key.data === undefined ? key.error === null && <Status>Loading the key…</Status> : <KeyDetails keyData={key.data} />}
    </>
  )
}

function KeyDetails({ keyData }: { keyData: Key }) {
  const { api, canWrite } = useSession()
  const [range, setRange] = useState(DEFAULT_RANGE)
  const [open, setOpen] = useState<Open>(null)
  const unban = useAction()
  const { refresh } = useView()
  const plans = usePlanList()
  const usage = useApiData((signal) => api.keyUsage(keyData.id, rangeQuery(range, Date.now()), signal), [keyData.id, range])
  const state = keyState(keyData, Date.now())
  const title = keyTitle(keyData)
  const customerName = useCustomerNames([keyData.customerId]).get(keyData.customerId)

  return (
    <>
      {canWrite && (
        <div class="actions key-actions" role="group" aria-label="Key actions">
          {state !== 'revoked' && (
            <>
              <button type="button" onClick={() => setOpen('edit')}>
                Edit
              </button>
              <button type="button" onClick={() => setOpen('rotate')}>
                Rotate
              </button>
              <button type="button" class="danger" onClick={() => setOpen('revoke')}>
                Revoke
              </button>
            </>
          )}
          {state === 'banned' && (
            <button type="button" onClick={() => void unban.run(() => api.unbanKey(keyData.id)).then(refresh)} aria-busy={unban.busy}>
              Unban
            </button>
          )}
        </div>
      )}
      <ErrorAlert message={unban.error} />
      <dl class="details">
        <dt>ID</dt>
        <dd>
          <code>{keyData.id}</code>
        </dd>
        <dt>Prefix</dt>
        <dd>
          <code>{keyData.prefix}</code>
        </dd>
        <dt>Customer</dt>
        <dd>
          <a href={customerHref(keyData.customerId)}>{customerName ?? keyData.customerId}</a>
        </dd>
        <dt>Plan</dt>
        <dd>{planLabel(plans, keyData.plan)}</dd>
        <dt>Limits</dt>
        <dd>
          {limitsInWords(keyData.limits)}
          <span class="muted">, the customer's, shared by all its keys</span>
        </dd>
        <dt>Scopes</dt>
        <dd>
          <Scopes scopes={keyData.scopes} />
        </dd>
        <dt>Used</dt>
        <dd>
          {count(keyData.usage.minute)} this minute, {count(keyData.usage.day)} today
        </dd>
        <dt>State</dt>
        <dd>
          {STATE_LABELS[state]}
          {state === 'banned' && (
            <>
              {' '}
              until <Time value={keyData.bannedUntil} />
            </>
          )}
        </dd>
        <dt>Created</dt>
        <dd>
          <Time value={keyData.createdAt} />
        </dd>
        <dt>Expires</dt>
        <dd>
          <Time value={keyData.expiresAt} fallback="never" />
        </dd>
        <dt>Last used</dt>
        <dd>
          <Time value={keyData.lastUsedAt} fallback="never" />
        </dd>
        {keyData.revokedAt !== null && (
          <>
            <dt>Revoked</dt>
            <dd>
              <Time value={keyData.revokedAt} />
            </dd>
          </>
        )}
        {keyData.previousSecretExpiresAt !== null && (
          <>
            <dt>Previous secret works until</dt>
            <dd>
              <Time value={keyData.previousSecretExpiresAt} />
            </dd>
          </>
        )}
      </dl>
      <section aria-labelledby="key-usage">
        <h2 id="key-usage">Usage</h2>
        <RangePicker value={range} onChange={setRange} />
        <ErrorAlert message={usage.error} />
        <UsageChart
          title={`Usage of ${title}`}
          buckets={usage.data}
          granularity={range.granularity}
          rangeLabel={range.label}
          exportName={`usage-${keyData.id}`}
        />
      </section>
      {open === 'edit' && <EditKeyDialog keyData={keyData} onClose={() => setOpen(null)} />}
      {open === 'rotate' && <RotateKeyDialog keyData={keyData} onClose={() => setOpen(null)} />}
      {open === 'revoke' && <RevokeKeyDialog keyData={keyData} onClose={() => setOpen(null)} />}
    </>
  )
}
