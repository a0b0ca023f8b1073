import { OPERATOR_ERROR_STATUS, type OperatorErrorCode } from '@animal-store/contract'

/**
 * An error the API answers with: its code decides the status, through the contract's one table
 * (the operator API's, which holds every public code and `forbidden`).
 */
export class ApiError extends Error {
  override name = 'ApiError'
  readonly code: OperatorErrorCode
  readonly status: number
  readonly headers: Record<string, string>

  constructor(code: OperatorErrorCode, message: string, headers: Record<string, string> = {}) {
    super(message)
    this.code = code
    this.status = OPERATOR_ERROR_STATUS[code]
    this.headers = headers
  }
}
