// What a caller sees when it would rather fail fast than wait: with maxTotalWaitMs 0 the
// client never sleeps, so the first 429 surfaces as an AnimalStoreError with Retry-After.
// Run with a Free key (Node.js 22.18+ runs .ts files as they are):
//   BASE_URL=http://127.0.0.1:8080/v1 API_KEY=as_live_... node rate-limit-errors.ts
import { AnimalStoreError, createClient } from '@animal-store/client'

const client = createClient({
  baseUrl: process.env.BASE_URL ?? 'http://127.0.0.1:8080/v1',
  apiKey: process.env.API_KEY ?? '',
  maxTotalWaitMs: 0
})

for (let request = 1; request <= 2_000; request++) {
  try {
    await client.listPets({ limit: 1 })
  } catch (error) {
    if (!(error instanceof AnimalStoreError) || error.status !== 429) throw error
    console.log(`request ${request}: ${error.code}, retry after ${(error.retryAfterMs ?? 0) / 1000} s`)
    for (const window of client.lastRateLimit?.windows ?? []) {
      console.log(`  ${window.name}: ${window.remaining} of ${window.quota} left, resets in ${window.resetSeconds} s`)
    }
    process.exit(0)
  }
}
console.log('no rate limit reached in 2000 requests')
