import type { OperationSpec } from '../operation-spec.ts'
import type { OperatorErrorCode } from './errors.ts'
import type { OperatorRole } from './operators.ts'

/** An operation of the operator API: paths are relative to `/admin/v1`; `role` is the least role that may call it. */
export interface AdminOperationSpec extends OperationSpec<OperatorErrorCode> {
  role: OperatorRole
}

/** Errors any operator operation can answer with (429: too many failed sign-ins from the address). */
export const ADMIN_COMMON_ERRORS: OperatorErrorCode[] = ['unauthorized', 'forbidden', 'rate_limited', 'internal_error', 'unavailable']

export const BODY_ERRORS: OperatorErrorCode[] = ['bad_request', 'validation_failed', 'payload_too_large', 'unsupported_media_type']

export function operation(spec: Omit<AdminOperationSpec, 'tags' | 'never' | 'extensions'> & { tag: string }): AdminOperationSpec {
  const { tag, ...rest } = spec
  return {
    ...rest,
    description: `${spec.description} Needs the \`${spec.role}\` role.`,
    tags: [tag],
    // Every role may read: only writes can be forbidden.
    never: spec.role === 'viewer' ? ['forbidden'] : [],
    extensions: { 'x-required-role': spec.role }
  }
}
