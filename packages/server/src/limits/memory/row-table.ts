import type { CounterRow } from '../../storage/counter-file-types.ts'
import type { TakenList } from './typed-lists.ts'

/** Longest subject a table holds, in latin1 characters: `ip:` and a full IPv6 text with its prefix length fit. */
export const SUBJECT_CHARS = 64
// eslint-disable-next-line no-control-regex -- the range is the point: one byte per character
const LATIN1 = /^[\u0000-\u00ff]*$/

/** Refuses a subject a table could not keep byte for byte: cut short, it would never be found again. */
export function checkSubject(subject: string): void {
  if (subject.length > SUBJECT_CHARS || !LATIN1.test(subject)) {
    throw new RangeError(`a rate-limit subject is at most ${SUBJECT_CHARS} latin1 characters`)
  }
}

/** A row the counter rules read and change in place, and mark as changed for the next write. */
export interface HeldRow extends CounterRow {
  markChanged(): void
}

/**
 * What changed since the last `takeChanges`: subjects to delete, then rows to write, each read
 * a slice at a time. Rows are read as they are sliced, so a caller that writes them later
 * writes what they hold then (never older). Valid until the next `takeChanges`.
 */
export interface CounterChanges {
  forgotten: TakenList<string>
  rows: TakenList<CounterRow>
}

/**
 * A table of counter rows in numbered slots, keys' and addresses' alike: a row marks itself
 * changed through its table by its slot, and the table keeps its changes in a `SlotChanges`,
 * so both are tracked, and taken for writing, the same way.
 */
export interface RowTable {
  /** Records the row in `slot` as changed, once until the next `takeChanges` (when changes are tracked). */
  markChanged(slot: number): void
  isChanged(slot: number): boolean
  takeChanges(): CounterChanges
}
