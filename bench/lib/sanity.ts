import { call } from './http.ts'
import type { Store, Target } from './targets.ts'
import { CREATE_BODY, LIST_PATH, LIST_STATUS_PATH } from './workloads.ts'

/** One request of each workload, checked, before any load: a broken target must not be "fast". */
export async function sanityCheck(origin: string, target: Target, store: Store, paths: string[]): Promise<{ rateLimitHeaders: boolean }> {
  const expect = async (path: string, method: 'GET' | 'POST', status: number, check: (body: unknown) => boolean) => {
    const answer = await call(origin, path, store.key, method === 'POST' ? { method, body: CREATE_BODY } : {})
    let body: unknown
    try {
      body = JSON.parse(answer.body)
    } catch {
      body = undefined
    }
    if (answer.status !== status || !check(body))
      throw new Error(`${target.id}: ${method} ${path} answered ${answer.status} ${answer.body.slice(0, 300)}`)
    return answer
  }
  const isPage = (body: unknown) => Array.isArray(body) && body.length === 20
  const first = await expect(LIST_PATH, 'GET', 200, isPage)
  await expect(
    LIST_STATUS_PATH,
    'GET',
    200,
    (b) => isPage(b) && (target.role === 'ceiling' || (b as Array<{ status: string }>).every((p) => p.status === 'available'))
  )
  await expect(paths[paths.length - 1]!, 'GET', 200, Array.isArray)
  await expect(
    `/v1/pets/${store.maxId}`,
    'GET',
    200,
    (b) => typeof b === 'object' && b !== null && (target.role === 'ceiling' || String((b as { id: unknown }).id) === String(store.maxId))
  )
  await expect('/v1/pets', 'POST', 201, (b) => typeof b === 'object' && b !== null && 'id' in b)
  await store.trim()
  return { rateLimitHeaders: first.headers.has('x-ratelimit-limit') }
}
