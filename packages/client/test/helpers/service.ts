import { createClient, type AnimalStoreClient, type ClientOptions, type FetchFunction, type SleepFunction } from '../../src/index.ts'
import type { ManualClock } from '../../../server/src/base/clock.ts'
import { startApp, type TestApp } from '../../../server/test/helpers/app.ts'

export { startApp, type TestApp }

/** One request the client sent, the service's clock when it went out, and what came back. */
export interface SentRequest {
  method: string
  url: string
  headers: Headers
  body: string | undefined
  at: number
  status: number | undefined
  retryAfter: string | null
  code: string | undefined
}

/** A fetch over real HTTP that records every request, for counting attempts and checking their spacing. */
export function recordingFetch(
  clock: ManualClock,
  inner: FetchFunction = (input, init) => fetch(input, init)
): { fetch: FetchFunction; sent: SentRequest[] } {
  const sent: SentRequest[] = []
  return {
    sent,
    fetch: async (input, init) => {
      const record: SentRequest = {
        method: init.method ?? 'GET',
        url: input,
        headers: new Headers(init.headers),
        body: typeof init.body === 'string' ? init.body : undefined,
        at: clock.now(),
        status: undefined,
        retryAfter: null,
        code: undefined
      }
      sent.push(record)
      const response = await inner(input, init)
      record.status = response.status
      record.retryAfter = response.headers.get('retry-after')
      if (!response.ok) record.code = ((await response.clone().json()) as { code?: string }).code
      return response
    }
  }
}

/**
 * A sleep that moves the service's clock instead of waiting, so a minute window or a ban
 * passes at once. Concurrent sleepers each wake at their own time; the clock never goes back.
 */
export function clockSleep(clock: ManualClock): { sleep: SleepFunction; sleeps: number[] } {
  const sleeps: number[] = []
  return {
    sleeps,
    sleep: async (ms, signal) => {
      signal?.throwIfAborted()
      sleeps.push(ms)
      const wake = clock.now() + ms
      await Promise.resolve()
      clock.set(Math.max(clock.now(), wake))
    }
  }
}

export interface ClientUnderTest {
  client: AnimalStoreClient
  sent: SentRequest[]
  sleeps: number[]
}

/** A client of `app` with `key`, recording its requests and sleeping on the service's clock. */
export function clientOf(
  app: TestApp,
  key: string,
  options: Partial<ClientOptions> & { innerFetch?: FetchFunction } = {}
): ClientUnderTest {
  const { innerFetch, ...rest } = options
  const { fetch, sent } = recordingFetch(app.clock, innerFetch)
  const { sleep, sleeps } = clockSleep(app.clock)
  const client = createClient({ baseUrl: app.base, apiKey: key, fetch, sleep, random: () => 0.5, onDeprecation: () => {}, ...rest })
  return { client, sent, sleeps }
}

/** A key whose limits never get in the way of a test about something else. */
export function unlimitedKey(app: TestApp): Promise<string> {
  return app.key({ plan: 'enterprise', perMinute: 1_000_000, perDay: 1_000_000 })
}
