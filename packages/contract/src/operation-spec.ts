import type { TSchema } from 'typebox'
import type { ErrorCode } from './errors.ts'
import type { ResponseHeaderName } from './headers.ts'

// How an operation is described, for the public API and the operator API alike: the OpenAPI
// documents, validation and the clients' types are generated from these descriptions.

export interface RequestHeaderSpec {
  name: string
  description: string
  schema: TSchema
  required?: boolean
}

export interface OperationSpec<Code extends string = ErrorCode> {
  operationId: string
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE'
  /** OpenAPI path template relative to the base address (`/pets/{petId}`). */
  path: string
  summary: string
  description: string
  tags: string[]
  deprecated?: { sunset: Date; since: Date; replacement: string }
  params?: TSchema
  query?: TSchema
  body?: TSchema
  /** Whether a body must be sent (default); false: an empty body means every field's default. */
  bodyRequired?: boolean
  requestHeaders?: RequestHeaderSpec[]
  /**
   * The answer; a 204's schema is `Type.Null()` and it has no body. `mediaType` other than JSON
   * (`application/x-ndjson`: `schema` is then one line's) names a streamed body.
   */
  success: { status: number; description: string; schema: TSchema; headers: ResponseHeaderName[]; mediaType?: string }
  /** The error codes this operation answers with, beyond those every operation can give. */
  errors: Code[]
  /** Codes of the common errors this operation never answers with. */
  never?: Code[]
  /** Realistic examples for the document (each Error response gets one per code from its table's example messages). */
  examples: OperationExamples
  /** `x-` fields of the operation object in the document. */
  extensions?: Record<`x-${string}`, unknown>
}

export interface OperationExamples {
  /** By parameter name: path, query and header parameters alike. */
  parameters?: Record<string, unknown>
  body?: unknown
  success: unknown
}

/** Every error code the operation can answer with: its own, then the common ones it does not exclude. */
export function errorCodesIn<Code extends string>(op: OperationSpec<Code>, common: readonly Code[]): Code[] {
  return [...op.errors, ...common.filter((code) => !(op.never ?? []).includes(code))]
}

/** The codes grouped by the status they answer with, lowest status first. */
export function statusesOf<Code extends string>(codes: readonly Code[], status: Readonly<Record<Code, number>>): Map<number, Code[]> {
  const byStatus = new Map<number, Code[]>()
  for (const code of codes) byStatus.set(status[code], [...(byStatus.get(status[code]) ?? []), code])
  return new Map([...byStatus].sort(([a], [b]) => a - b))
}
