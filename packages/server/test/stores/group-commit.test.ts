import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import type { Pet } from '@animal-store/contract'
import { IdempotencyClaimLostError, type IdempotencyCompletion } from '../../src/storage/pets/idempotency.ts'
import { type Storage } from '../../src/storage/types.ts'
import { openStore, suiteBackends } from '../helpers/backends.ts'

const LIMITS = { expiredBefore: 0, staleBefore: 0 }

/** A completion for a fresh claim on `key`, answering with the pet's id. */
async function claimed(storage: Storage, key: string): Promise<IdempotencyCompletion> {
  const scope = { apiKeyId: 'key_group_commit', key }
  const claim = await storage.idempotency.claim(scope, `fp-${key}`, 1_000, LIMITS)
  assert.equal(claim.state, 'claimed')
  return { scope, token: claim.token, respond: (pet: Pet) => ({ status: 201, body: `{"id":${pet.id}}`, location: `/v1/pets/${pet.id}` }) }
}

const create = (storage: Storage, name: string, idempotency?: IdempotencyCompletion) =>
  storage.pets.create({ name, categoryId: 1, status: 'available' }, idempotency)

async function allPets(storage: Storage): Promise<Pet[]> {
  return storage.pets.page({ status: undefined, afterId: undefined, limit: 100 })
}

for (const { backend, skip } of await suiteBackends()) {
  describe(`group commit (${backend.name})`, { skip }, () => {
    test('creates issued together are answered with distinct ascending ids, each as stored', async (t) => {
      const { storage } = await openStore(t, backend)
      const names = Array.from({ length: 40 }, (_, i) => `pet-${i}`)
      const created = await Promise.all(names.map((name) => create(storage, name)))
      assert.deepEqual(
        created.map((pet) => pet.name),
        names
      )
      const ids = created.map((pet) => BigInt(pet.id))
      assert.deepEqual(
        [...ids].sort((a, b) => (a < b ? -1 : 1)),
        ids,
        'ids follow the order the creates were issued in'
      )
      assert.equal(new Set(ids).size, ids.length)
      assert.deepEqual(await allPets(storage), created)
    })

    test('a create whose Idempotency-Key claim lapsed fails alone: the rest of its batch commits', async (t) => {
      const { storage } = await openStore(t, backend)
      const keep = await claimed(storage, 'kept')
      const lapsed = await claimed(storage, 'lapsed')
      // Another request takes the lapsed claim over (as after staleBefore): its token is no longer ours.
      const takeover = await storage.idempotency.claim(lapsed.scope, 'fp-other', 2_000, { expiredBefore: 0, staleBefore: 1_500 })
      assert.equal(takeover.state, 'claimed')

      const outcomes = await Promise.allSettled([
        create(storage, 'plain-1'),
        create(storage, 'kept', keep),
        create(storage, 'lapsed', lapsed),
        create(storage, 'plain-2')
      ])
      assert.deepEqual(
        outcomes.map((o) => o.status),
        ['fulfilled', 'fulfilled', 'rejected', 'fulfilled']
      )
      assert.ok((outcomes[2] as PromiseRejectedResult).reason instanceof IdempotencyClaimLostError)
      assert.deepEqual(
        (await allPets(storage)).map((pet) => pet.name),
        ['plain-1', 'kept', 'plain-2']
      )

      const keptPet = (outcomes[1] as PromiseFulfilledResult<Pet>).value
      const replay = await storage.idempotency.claim(keep.scope, 'fp-kept', 3_000, LIMITS)
      assert.deepEqual(replay, {
        state: 'completed',
        fingerprint: 'fp-kept',
        response: { status: 201, body: `{"id":${keptPet.id}}`, location: `/v1/pets/${keptPet.id}` }
      })
      const other = await storage.idempotency.claim(lapsed.scope, 'fp-other', 3_000, LIMITS)
      assert.equal(other.state, 'in_flight', "the lapsed create left the new owner's claim as it was")
    })
  })
}
