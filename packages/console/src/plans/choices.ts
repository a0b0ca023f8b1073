// Choosing and naming plans: pure functions of the plan list, shared by the key screens and dialogs.
import type { Plan } from '@animal-store/contract'

/** A plan's name for people; its id while the list loads, or when the plan is gone. */
export function planLabel(plans: readonly Plan[], id: string): string {
  return plans.find((plan) => plan.id === id)?.name ?? id
}

/** Whether keys on the plan carry their own numbers (`limits: null`, as Enterprise). */
export function isCustomPlan(plans: readonly Plan[], id: string): boolean {
  return plans.find((plan) => plan.id === id)?.limits === null
}

/**
 * The plan a new key starts on: the one with the fewest requests a minute among those with
 * limits (Free, as seeded), else the first. Undefined while the list loads.
 */
export function starterPlan(plans: readonly Plan[]): Plan | undefined {
  let best: { plan: Plan; perMinute: number } | undefined
  for (const plan of plans) {
    if (plan.limits !== null && (best === undefined || plan.limits.perMinute < best.perMinute))
      best = { plan, perMinute: plan.limits.perMinute }
  }
  return best?.plan ?? plans[0]
}

/**
 * The options of a Plan select: every plan by name, plus the chosen id when it is not among them
 * (the list still loading, or a plan deleted since), so the select shows what is chosen.
 */
export function planOptions(plans: readonly Plan[], chosen: string): { value: string; label: string }[] {
  const options = plans.map((plan) => ({ value: plan.id, label: plan.name }))
  if (chosen !== '' && !plans.some((plan) => plan.id === chosen)) options.unshift({ value: chosen, label: chosen })
  return options
}
