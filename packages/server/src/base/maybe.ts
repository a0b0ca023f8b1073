/**
 * A value that in-process stores hand over at once and remote ones as a promise. The hot path
 * of the embedded default answers without allocating a promise; this is the one place that
 * tells the two apart.
 */
export type Maybe<T> = T | Promise<T>

/**
 * `next(value)` now when `value` is ready, else once it settles. A rejection goes to
 * `onRejected` when given (a ready value cannot reject: its producer threw already).
 */
export function andThen<T, U>(value: Maybe<T>, next: (ready: T) => Maybe<U>, onRejected?: (error: unknown) => Maybe<U>): Maybe<U> {
  return value instanceof Promise ? value.then(next, onRejected) : next(value)
}
