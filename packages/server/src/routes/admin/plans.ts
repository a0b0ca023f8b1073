import type { FastifyInstance } from 'fastify'
import { createPlan, deletePlan, listPlans, updatePlan, type NewPlan, type PlanPatch } from '@animal-store/contract'
import type { PlanService } from '../../domain/plans/service.ts'
import { signedIn } from '../../http/hooks/operators/operator-guard.ts'
import { adminRoute } from './route.ts'

type IdParams = { Params: { id: string } }

/** listPlans, createPlan, updatePlan and deletePlan: schema in, one service call, schema out. */
export function registerPlanRoutes(app: FastifyInstance, { plans }: { plans: PlanService }): void {
  adminRoute(app, listPlans, async () => plans.list())

  adminRoute<{ Body: NewPlan }>(app, createPlan, async (request) => {
    const { actor, origin } = signedIn(request)
    return (await plans.create(request.body, actor, origin)).plan
  })

  adminRoute<IdParams & { Body: PlanPatch }>(app, updatePlan, async (request) => {
    const { actor, origin } = signedIn(request)
    return (await plans.update(request.params.id, request.body, actor, origin)).plan
  })

  adminRoute<IdParams>(app, deletePlan, async (request) => {
    const { actor, origin } = signedIn(request)
    await plans.delete(request.params.id, actor, origin)
    return null
  })
}
