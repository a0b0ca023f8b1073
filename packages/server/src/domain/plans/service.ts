import type { Plan } from '@animal-store/contract'
import type { Clock } from '../../base/clock.ts'
import type { PlanRecord, PlanStore, PlanWithUse } from '../../storage/plans/types.ts'
import { CLI_ORIGIN, type Actor, type RequestOrigin } from '../actor.ts'
import { auditEntry, type ChangeEvent } from '../audit/log.ts'
import { looksLikePlanId, newPlanFields, planChanges, type CreatePlanInput, type UpdatePlanInput } from './changes.ts'
import { PlanExistsError, PlanInUseError, PlanNotFoundError } from './errors.ts'

type PlanAction = 'plan.create' | 'plan.update' | 'plan.delete'

const iso = (ms: number) => new Date(ms).toISOString()

/** A plan as the operator API answers it. */
function viewPlan(plan: PlanRecord, customers: number): Plan {
  const limits =
    plan.perMinute === null || plan.perDay === null ? null : { perMinute: plan.perMinute, perDay: plan.perDay, perMonth: plan.perMonth }
  return { id: plan.id, name: plan.name, limits, customers, createdAt: iso(plan.createdAt) }
}

const viewWithUse = (plan: PlanWithUse): Plan => viewPlan(plan, plan.customers)

/** Each stored field an update changed, as the audit log records it (null limits: a custom plan). */
function fieldChanges(before: PlanRecord, after: PlanRecord): Record<string, { from: string | number | null; to: string | number | null }> {
  const changes: Record<string, { from: string | number | null; to: string | number | null }> = {}
  if (before.name !== after.name) changes.name = { from: before.name, to: after.name }
  if (before.perMinute !== after.perMinute) changes.perMinute = { from: before.perMinute, to: after.perMinute }
  if (before.perDay !== after.perDay) changes.perDay = { from: before.perDay, to: after.perDay }
  if (before.perMonth !== after.perMonth) changes.perMonth = { from: before.perMonth, to: after.perMonth }
  return changes
}

function planEvent(action: PlanAction, actor: Actor, plan: PlanRecord, now: number, changes: object = {}): ChangeEvent {
  return { action, actor, target: { type: 'plan', id: plan.id, name: plan.name }, changes, at: iso(now) }
}

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`

/**
 * Plans as data, for the CLI and the operator API alike; every change audited in its own
 * transaction. `planChanged` tells this process's plan book at once; other instances read the
 * plans again within seconds. Refusals: PlanInputError, PlanNotFoundError, PlanExistsError,
 * PlanInUseError; a refusal changes nothing.
 */
export class PlanService {
  readonly #store: PlanStore
  readonly #clock: Clock
  readonly #planChanged: () => void

  constructor(store: PlanStore, clock: Clock, planChanged: () => void = () => {}) {
    this.#store = store
    this.#clock = clock
    this.#planChanged = planChanged
  }

  /** Every plan, by id. */
  async list(): Promise<Plan[]> {
    return (await this.#store.list()).map(viewWithUse)
  }

  async get(id: string): Promise<Plan> {
    return viewWithUse(await this.#find(id))
  }

  async create(input: CreatePlanInput, actor: Actor, origin: RequestOrigin = CLI_ORIGIN): Promise<{ plan: Plan; event: ChangeEvent }> {
    const now = this.#clock.now()
    const record: PlanRecord = { ...newPlanFields(input), createdAt: now }
    const event = planEvent('plan.create', actor, record, now)
    if (!(await this.#store.create(record, auditEntry(event, origin)))) throw new PlanExistsError(record.id)
    this.#planChanged()
    return { plan: viewPlan(record, 0), event }
  }

  /** Changes the name or limits; counts already taken in the current windows stay. */
  async update(
    id: string,
    input: UpdatePlanInput,
    actor: Actor,
    origin: RequestOrigin = CLI_ORIGIN
  ): Promise<{ plan: Plan; event: ChangeEvent }> {
    const now = this.#clock.now()
    await this.#find(id)
    let event: ChangeEvent | undefined
    const result = await this.#store.update(id, planChanges(input), (before, after) => {
      event = planEvent('plan.update', actor, after, now, fieldChanges(before, after))
      return auditEntry(event, origin)
    })
    if (result.outcome === 'missing') throw new PlanNotFoundError(id)
    if (result.outcome === 'customers_without_limits')
      throw new PlanInUseError(
        `plan ${JSON.stringify(id)} cannot become custom: ${plural(result.customers, 'customer')} on it ` +
          `${result.customers === 1 ? 'carries no limits of its' : 'carry no limits of their'} own; ` +
          'give them their own numbers or move them to another plan first'
      )
    this.#planChanged()
    return { plan: await this.get(id), event: event! }
  }

  /** Deletes a plan nothing is on. */
  async delete(id: string, actor: Actor, origin: RequestOrigin = CLI_ORIGIN): Promise<{ event: ChangeEvent }> {
    const now = this.#clock.now()
    await this.#find(id)
    let event: ChangeEvent | undefined
    const result = await this.#store.delete(id, (plan) => auditEntry((event = planEvent('plan.delete', actor, plan, now)), origin))
    if (result.outcome === 'missing') throw new PlanNotFoundError(id)
    if (result.outcome === 'in_use')
      throw new PlanInUseError(
        `plan ${JSON.stringify(id)} has ${plural(result.customers, 'customer')} on it; move them to another plan first`
      )
    this.#planChanged()
    return { event: event! }
  }

  async #find(id: string): Promise<PlanWithUse> {
    const plan = looksLikePlanId(id) ? await this.#store.get(id) : undefined
    if (plan === undefined) throw new PlanNotFoundError(id)
    return plan
  }
}
