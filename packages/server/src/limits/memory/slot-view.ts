import type { HeldRow } from './row-table.ts'

/** The numbers of a row, at these offsets of its stride in the table's `numbers`; a null ban is NaN. */
const MINUTE_START = 0
const MINUTE_USED = 1
const REFUSALS = 2
const DAY_START = 3
const DAY_USED = 4
const BANNED_UNTIL = 5
export const STRIDE = 6

/** Client addresses run under no monthly quota, so their rows keep no month: only "none counted" fits. */
function noMonth(value: number): void {
  if (value !== 0) throw new RangeError('a client address has no monthly quota: its month is never counted')
}

/** What a view reads through: a table of rows in slots. */
interface SlotTable {
  readonly numbers: Float64Array
  subject(slot: number): string
  markChanged(slot: number): void
}

/** A client address's row in its slot, as a CounterRow: the rules of the counter store read and change it in place. */
export class SlotView implements HeldRow {
  slot = -1
  readonly #rows: SlotTable

  constructor(rows: SlotTable) {
    this.#rows = rows
  }

  #get(offset: number): number {
    return this.#rows.numbers[this.slot * STRIDE + offset]!
  }

  #set(offset: number, value: number): void {
    this.#rows.numbers[this.slot * STRIDE + offset] = value
  }

  markChanged(): void {
    this.#rows.markChanged(this.slot)
  }

  get subject(): string {
    return this.#rows.subject(this.slot)
  }
  get minuteStart(): number {
    return this.#get(MINUTE_START)
  }
  set minuteStart(value: number) {
    this.#set(MINUTE_START, value)
  }
  get minuteUsed(): number {
    return this.#get(MINUTE_USED)
  }
  set minuteUsed(value: number) {
    this.#set(MINUTE_USED, value)
  }
  get refusals(): number {
    return this.#get(REFUSALS)
  }
  set refusals(value: number) {
    this.#set(REFUSALS, value)
  }
  get dayStart(): number {
    return this.#get(DAY_START)
  }
  set dayStart(value: number) {
    this.#set(DAY_START, value)
  }
  get dayUsed(): number {
    return this.#get(DAY_USED)
  }
  set dayUsed(value: number) {
    this.#set(DAY_USED, value)
  }
  get monthStart(): number {
    return 0
  }
  set monthStart(value: number) {
    noMonth(value)
  }
  get monthUsed(): number {
    return 0
  }
  set monthUsed(value: number) {
    noMonth(value)
  }
  get bannedUntil(): number | null {
    const value = this.#get(BANNED_UNTIL)
    return Number.isNaN(value) ? null : value
  }
  set bannedUntil(value: number | null) {
    this.#set(BANNED_UNTIL, value ?? Number.NaN)
  }
}
