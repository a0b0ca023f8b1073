import type { Plan } from '@animal-store/contract'
import { useState } from 'preact/hooks'
import { ExportCsv } from '../components/export-csv.tsx'
import { ErrorAlert, Status } from '../components/notices.tsx'
import { ScreenHeading } from '../components/screen-heading.tsx'
import { TableFrame } from '../components/table-parts.tsx'
import { count } from '../labels.ts'
import { usePlans } from '../plans/context.ts'
import { useSession, useView } from '../session.ts'
import { isoInZone, type Zone } from '../time.ts'
import { CreatePlanDialog, DeletePlanDialog, EditPlanDialog } from './plan-dialogs.tsx'

type Open = { dialog: 'create' } | { dialog: 'edit' | 'delete'; plan: Plan } | null

type Limits = NonNullable<Plan['limits']>

/** The plans, by id: their limits and how many customers are on each; for admins, create, edit and delete. */
export function PlansScreen() {
  const { api, canWrite } = useSession()
  const { refresh } = useView()
  const plans = usePlans()
  const [open, setOpen] = useState<Open>(null)
  const [done, setDone] = useState('')
  // A deleted plan leaves the table at once, not only once the list asked again arrives.
  const [deleted, setDeleted] = useState<{ id: string; from: readonly Plan[] | undefined } | null>(null)
  const rows = (plans.data ?? []).filter((plan) => deleted === null || deleted.from !== plans.data || plan.id !== deleted.id)

  const close = () => setOpen(null)
  const finish = (message: string) => {
    if (open?.dialog === 'delete') setDeleted({ id: open.plan.id, from: plans.data })
    setOpen(null)
    setDone(message)
    refresh()
  }

  const exportPlans = async (zone: Zone) => ({
    header: ['ID', 'Name', 'Custom', 'Per minute', 'Per day', 'Per month', 'Customers', 'Created'],
    rows: (await api.listPlans()).map((plan) => [
      plan.id,
      plan.name,
      plan.limits === null ? 'yes' : 'no',
      plan.limits?.perMinute ?? null,
      plan.limits?.perDay ?? null,
      plan.limits?.perMonth ?? null,
      plan.customers,
      isoInZone(plan.createdAt, zone)
    ])
  })

  return (
    <>
      <ScreenHeading>Plans</ScreenHeading>
      <div class="toolbar">
        <p class="muted intro">What each plan allows. A change to a plan reaches every key on it within 5 seconds.</p>
        <div class="actions">
          <ExportCsv name="plans" load={exportPlans} />
          {canWrite && (
            <button type="button" class="primary" onClick={() => setOpen({ dialog: 'create' })}>
              Create plan
            </button>
          )}
        </div>
      </div>
      <ErrorAlert message={plans.error} />
      <TableFrame label="Plans" busy={plans.loading}>
        <table class={canWrite ? 'with-actions' : undefined}>
          <caption class="visually-hidden">Plans</caption>
          <thead>
            <tr>
              <th scope="col">ID</th>
              <th scope="col">Name</th>
              <th scope="col" class="number">
                Per minute
              </th>
              <th scope="col" class="number">
                Per day
              </th>
              <th scope="col" class="number">
                Per month
              </th>
              <th scope="col" class="number">
                Customers
              </th>
              {canWrite && (
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              )}
            </tr>
          </thead>
          <tbody>
            {rows.map((plan) => (
              <tr key={plan.id}>
                <th scope="row">
                  <code>{plan.id}</code>
                </th>
                <td>{plan.name}</td>
                <LimitCells limits={plan.limits} />
                <td class="number">{count(plan.customers)}</td>
                {canWrite && (
                  <td class="row-actions">
                    <button type="button" onClick={() => setOpen({ dialog: 'edit', plan })}>
                      Edit
                    </button>
                    <button type="button" class="danger" onClick={() => setOpen({ dialog: 'delete', plan })}>
                      Delete
                    </button>
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      </TableFrame>
      {done !== '' && <Status>{done}</Status>}
      {plans.data === undefined && plans.error === null && <Status>Loading plans…</Status>}
      {plans.data !== undefined && rows.length === 0 && <Status>There is no plan yet.</Status>}
      {open?.dialog === 'create' && <CreatePlanDialog onClose={close} onDone={finish} />}
      {open?.dialog === 'edit' && <EditPlanDialog plan={open.plan} onClose={close} onDone={finish} />}
      {open?.dialog === 'delete' && <DeletePlanDialog plan={open.plan} onClose={close} onDone={finish} />}
    </>
  )
}

/** Per minute, Per day, Per month ("none": no monthly quota); "Custom" on a custom plan, whose keys carry their own numbers. */
function LimitCells({ limits }: { limits: Limits | null }) {
  if (limits === null) {
    return (
      <>
        <td class="number custom">Custom</td>
        <td class="number custom">Custom</td>
        <td class="number custom">Custom</td>
      </>
    )
  }
  return (
    <>
      <td class="number">{count(limits.perMinute)}</td>
      <td class="number">{count(limits.perDay)}</td>
      <td class="number">{limits.perMonth === null ? <span class="muted">none</span> : count(limits.perMonth)}</td>
    </>
  )
}
