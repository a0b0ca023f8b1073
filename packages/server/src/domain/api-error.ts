import { ERROR_STATUS, type ErrorCode } from '@animal-store/contract'

/** An error the API answers with: its code decides the status, through the contract's one table. */
export class ApiError extends Error {
  override name = 'ApiError'
  readonly code: ErrorCode
  readonly status: number
  readonly headers: Record<string, string>

  constructor(code: ErrorCode, message: string, headers: Record<string, string> = {}) {
    super(message)
    this.code = code
    this.status = ERROR_STATUS[code]
    this.headers = headers
  }
}
