import type { FastifyInstance } from 'fastify'
import { listBans, revokeKey, rotateKey, unbanKey, type KeyRotation } from '@animal-store/contract'
import type { KeyDirectory } from '../../domain/keys/directory.ts'
import type { KeyService } from '../../domain/keys/service.ts'
import { signedIn } from '../../http/hooks/operators/operator-guard.ts'
import { adminRoute } from './route.ts'

type IdParams = { Params: { id: string } }

/** rotateKey, revokeKey, unbanKey and listBans. */
export function registerKeyActionRoutes(app: FastifyInstance, { keys, directory }: { keys: KeyService; directory: KeyDirectory }): void {
  adminRoute<IdParams & { Body: KeyRotation }>(app, rotateKey, async (request) => {
    const { actor, origin } = signedIn(request)
    const { key, view } = await keys.rotate(request.params.id, request.body, actor, origin)
    return { ...view, key }
  })

  adminRoute<IdParams>(app, revokeKey, async (request) => {
    const { actor, origin } = signedIn(request)
    return (await keys.revoke(request.params.id, actor, origin)).view
  })

  adminRoute<IdParams>(app, unbanKey, async (request) => {
    const { actor, origin } = signedIn(request)
    return (await keys.unban(request.params.id, actor, origin)).view
  })

  adminRoute(app, listBans, async () => directory.banned())
}
