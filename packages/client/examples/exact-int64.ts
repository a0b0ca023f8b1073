// int64 values travel exactly: a bigint goes out as its digits and comes back as a bigint
// when it is beyond Number.MAX_SAFE_INTEGER; safe values stay plain numbers.
// Run (Node.js 22.18+ runs .ts files as they are): BASE_URL=http://127.0.0.1:8080/v1 API_KEY=as_live_... node exact-int64.ts
import { createClient } from '@animal-store/client'

const client = createClient({ baseUrl: process.env.BASE_URL ?? 'http://127.0.0.1:8080/v1', apiKey: process.env.API_KEY ?? '' })

for (const categoryId of [9223372036854775807n, 9007199254740993n, 42]) {
  const pet = await client.createPet({ name: `category ${categoryId}`, categoryId })
  console.log(`sent ${categoryId} (${typeof categoryId}), got back ${pet.categoryId} (${typeof pet.categoryId})`)
  if (BigInt(pet.categoryId) !== BigInt(categoryId)) throw new Error('categoryId was not kept exactly')
}
