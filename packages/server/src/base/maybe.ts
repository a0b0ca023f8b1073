/**
 * A value that in-process stores hand over at once and remote ones as a promise. The hot path
 * of the embedded default answers without allocating a promise; `isPending` and `andThen` are
 * the places that tell the two apart.
 */
export type Maybe<T> = T | Promise<T>

/** True while the value is still to come. A ready value continues at once, with no closure made for it. */
export function isPending<T>(value: Maybe<T>): value is Promise<T> {
  return value instanceof Promise
}

/**
 * `next(value)` now when `value` is ready, else once it settles. A rejection goes to
 * `onRejected` when given (a ready value cannot reject: its producer threw already).
 */
export function andThen<T, U>(value: Maybe<T>, next: (ready: T) => Maybe<U>, onRejected?: (error: unknown) => Maybe<U>): Maybe<U> {
  return isPending(value) ? value.then(next, onRejected) : next(value)
}
