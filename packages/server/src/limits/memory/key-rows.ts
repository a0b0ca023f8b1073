import { checkSubject, SUBJECT_CHARS, type CounterChanges, type HeldRow, type RowTable } from './row-table.ts'
import { NO_CHANGES, SlotChanges } from './slot-changes.ts'

/** A key's row: keys are few and steady, so a plain object each, in a numbered slot of its table. */
export class KeyCounterRow implements HeldRow {
  minuteUsed = 0
  refusals = 0
  dayUsed = 0
  monthStart = 0
  monthUsed = 0
  bannedUntil: number | null = null
  readonly subject: string
  minuteStart: number
  dayStart: number
  readonly slot: number
  readonly #table: RowTable

  constructor(table: RowTable, slot: number, subject: string, minuteStart: number, dayStart: number) {
    this.#table = table
    this.slot = slot
    this.subject = subject
    this.minuteStart = minuteStart
    this.dayStart = dayStart
  }

  markChanged(): void {
    this.#table.markChanged(this.slot)
  }
}

/**
 * Keys' counter rows by subject, never evicted (bounded by the keys issued). Each has a slot
 * number so that its changes are tracked in a `SlotChanges`, exactly as addresses' are.
 */
export class KeyRows implements RowTable {
  readonly #bySubject = new Map<string, KeyCounterRow>()
  /** Rows by slot; a freed slot keeps its last row until reused, so a taken change still reads a row. */
  readonly #slots: KeyCounterRow[] = []
  readonly #free: number[] = []
  readonly #changes: SlotChanges | undefined
  /** Slots the change flags have room for. */
  #capacity = 0

  /** `trackChanges`: record changed rows and forgotten subjects for `takeChanges`. */
  constructor(options: { trackChanges: boolean }) {
    this.#changes = options.trackChanges ? new SlotChanges(SUBJECT_CHARS) : undefined
  }

  find(subject: string): KeyCounterRow | undefined {
    return this.#bySubject.get(subject)
  }

  /** A new row for a subject not held, its counts zero. */
  add(subject: string, minuteStart: number, dayStart: number): KeyCounterRow {
    checkSubject(subject)
    const slot = this.#free.pop() ?? this.#slots.length
    if (slot === this.#capacity) {
      this.#capacity = Math.max(16, this.#capacity * 2)
      this.#changes?.widen(this.#capacity)
    }
    const row = new KeyCounterRow(this, slot, subject, minuteStart, dayStart)
    this.#slots[slot] = row
    this.#bySubject.set(subject, row)
    return row
  }

  /** Forgets the row (recorded for `takeChanges`); its slot is free for reuse. */
  remove(row: KeyCounterRow): void {
    this.#bySubject.delete(row.subject)
    this.#changes?.forgotText(row.subject)
    this.#changes?.drop(row.slot)
    this.#free.push(row.slot)
  }

  rows(): IterableIterator<KeyCounterRow> {
    return this.#bySubject.values()
  }

  markChanged(slot: number): void {
    this.#changes?.mark(slot)
  }

  isChanged(slot: number): boolean {
    return this.#changes?.has(slot) === true
  }

  /** Subjects forgotten and rows changed since the last call; the rows are the table's own, read as they are sliced. */
  takeChanges(): CounterChanges {
    return this.#changes?.take((slot) => this.#slots[slot]!) ?? NO_CHANGES
  }
}
