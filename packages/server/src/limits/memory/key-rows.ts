import type { HeldRow } from './slot-view.ts'

/** Keys' changes: the rows changed (each once) and the subjects forgotten since the last take. */
export class KeyChanges {
  rows: KeyRow[] = []
  forgotten: string[] = []
}

/** A key's row: keys are few and steady, so a plain object each. */
export class KeyRow implements HeldRow {
  minuteUsed = 0
  refusals = 0
  dayUsed = 0
  bannedUntil: number | null = null
  changed = false
  readonly subject: string
  minuteStart: number
  dayStart: number
  readonly #changes: KeyChanges | undefined

  constructor(subject: string, minuteStart: number, dayStart: number, changes: KeyChanges | undefined) {
    this.subject = subject
    this.minuteStart = minuteStart
    this.dayStart = dayStart
    this.#changes = changes
  }

  markChanged(): void {
    if (this.#changes === undefined || this.changed) return
    this.changed = true
    this.#changes.rows.push(this)
  }
}
