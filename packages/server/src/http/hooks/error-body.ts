import { ERROR_STATUS, type ErrorBody, type ErrorCode } from '@animal-store/contract'

/** The Error body of every refusal, from any layer: `status` always the one the contract gives the code. */
export function errorBody(code: ErrorCode, message: string): ErrorBody {
  return { code, message, status: ERROR_STATUS[code] }
}
