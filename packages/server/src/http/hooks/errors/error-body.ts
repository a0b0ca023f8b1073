import { OPERATOR_ERROR_STATUS, type OperatorErrorBody, type OperatorErrorCode } from '@animal-store/contract'

/** The Error body of every refusal, from any layer and either listener: `status` always the one the contract gives the code. */
export function errorBody(code: OperatorErrorCode, message: string): OperatorErrorBody {
  return { code, message, status: OPERATOR_ERROR_STATUS[code] }
}
