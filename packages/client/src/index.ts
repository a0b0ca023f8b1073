export {
  AnimalStoreClient,
  createClient,
  type AllPetsParams,
  type CallOptions,
  type ClientOptions,
  type CreatePetOptions,
  type ListPetsParams,
  type PetPage,
  type UsageParams
} from './client.ts'
export {
  API_VERSION,
  ERROR_CODE_VALUES,
  OPERATIONS,
  PAGE_SIZE,
  PET_STATUS_VALUES,
  type ErrorBody,
  type ErrorCode,
  type Int64,
  type NewPet,
  type Pet,
  type Pets,
  type PetStatus,
  type RateLimitStatus,
  type RateLimitWindow as RateLimitStatusWindow,
  type UsageBucket,
  type UsageBuckets
} from './api-types.generated.ts'
export type { DeprecationNotice } from './deprecation.ts'
export { AnimalStoreError, AnimalStoreNetworkError } from './errors.ts'
export type { RateLimitHeaderWindow, RateLimitState } from './rate-limit-state.ts'
// The name it had before the response schema's window took the same one: kept for 2.x callers.
export type { RateLimitHeaderWindow as RateLimitWindow } from './rate-limit-state.ts'
export { DEFAULT_RETRY_POLICY, type RetryPolicy } from './retry-policy.ts'
export type { FetchFunction, SleepFunction } from './transport.ts'
