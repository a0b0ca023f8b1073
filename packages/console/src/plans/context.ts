// The plans, as data (DESIGN §8): loaded once for the signed-in console and again on every
// refresh, shared by the Plans screen, the key dialogs, the plan filter and every Plan cell.
import type { Plan } from '@animal-store/contract'
import { createContext } from 'preact'
import { useContext } from 'preact/hooks'
import type { ApiData } from '../hooks/use-api-data.ts'

export const PlansContext = createContext<ApiData<Plan[]>>({ data: undefined, error: null, loading: true })

export const usePlans = (): ApiData<Plan[]> => useContext(PlansContext)

/** The plans known so far; none while the first list loads. */
export function usePlanList(): readonly Plan[] {
  return usePlans().data ?? []
}

export { isCustomPlan, planLabel, planOptions, starterPlan } from './choices.ts'
