// Create a few pets, list every page, and handle running out of rate limit.
// Run (Node.js 22.18+ runs .ts files as they are): BASE_URL=http://127.0.0.1:8080/v1 API_KEY=as_live_... node quickstart.ts
import { AnimalStoreError, createClient } from '@animal-store/client'

const client = createClient({
  baseUrl: process.env.BASE_URL ?? 'http://127.0.0.1:8080/v1',
  apiKey: process.env.API_KEY ?? '',
  // Retries 429, 503 and network failures on its own: exponential backoff with full
  // jitter, never sooner than Retry-After, at most 5 retries and 2 minutes of waiting.
  maxRetries: 5,
  maxTotalWaitMs: 120_000
})

try {
  // Each call sends its own Idempotency-Key, and keeps it across its retries.
  const rex = await client.createPet({ name: 'Rex', categoryId: 1 })
  await client.createPet({ name: 'Tom', categoryId: 2, status: 'sold' })
  console.log(`created pet ${rex.id}`)

  // allPets follows the Link: rel="next" pages until the last one.
  let count = 0
  for await (const pet of client.allPets({ pageSize: 100 })) {
    count++
    if (count <= 3) console.log(`${pet.id}\t${pet.name}\t${pet.status}`)
  }
  console.log(`listed ${count} pets`)

  const limits = client.lastRateLimit
  console.log(`rate limit: ${limits?.remaining} of ${limits?.limit} left until ${new Date((limits?.reset ?? 0) * 1000).toISOString()}`)
} catch (error) {
  // Thrown once the retries or the wait budget are spent, or at once when Retry-After is longer
  // than the budget: a ban, a spent day, or quota_exceeded (the monthly quota, until the month ends).
  if (error instanceof AnimalStoreError && error.status === 429) {
    const retryAt = new Date(Date.now() + (error.retryAfterMs ?? 0))
    console.error(`${error.code}: try again at ${retryAt.toISOString()} (request ${error.requestId})`)
    process.exitCode = 2
  } else {
    throw error
  }
}
