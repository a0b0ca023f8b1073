import type { FastifyInstance } from 'fastify'
import { errorBody } from '../http/hooks/errors/error-body.ts'

/** Resolves (optionally with a note such as "degraded: ...") when the dependency is usable; rejects when it is not. */
export type ReadinessCheck = () => Promise<string | void>

/** `/healthz`: the process answers. `/readyz`: every backing store answers (503 with an Error body otherwise). */
export function registerHealth(app: FastifyInstance, checks: Record<string, ReadinessCheck>): void {
  app.get('/healthz', async () => ({ status: 'ok' }))
  app.get('/readyz', async (_request, reply) => {
    const results: Record<string, string> = {}
    const failures: string[] = []
    await Promise.all(
      Object.entries(checks).map(async ([name, check]) => {
        try {
          results[name] = (await check()) ?? 'ok'
        } catch (error) {
          results[name] = `unavailable: ${(error as Error).message}`
          failures.push(name)
        }
      })
    )
    if (failures.length === 0) return { status: 'ready', checks: results }
    reply.code(503).header('retry-after', '5')
    return { ...errorBody('unavailable', `not ready: ${failures.sort().join(', ')} unreachable`), checks: results }
  })
}
