import Type from 'typebox'

/** The longest RFC 3339 date-time asked for: nanoseconds and an offset (`...59.999999999+14:00`). */
const LONGEST = '9999-12-31T23:59:59.999999999+14:00'

/** A moment as the operator API writes it: ISO 8601 in UTC, e.g. `2026-11-27T10:15:00.000Z`. */
export function Timestamp(description: string) {
  return Type.String({
    format: 'date-time',
    maxLength: LONGEST.length,
    description,
    example: '2026-11-27T10:15:00.000Z',
    'x-rule': 'must be an ISO 8601 date-time with Z or an offset, e.g. 2026-11-27T10:15:00Z'
  })
}

/** A moment, or null when there is none. */
export function NullableTimestamp(description: string) {
  return Type.Union([Timestamp(description), Type.Null()], { description })
}

/** A count of requests, as every usage figure is. */
export function Count(description: string) {
  return Type.Integer({ format: 'int64', minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description })
}
