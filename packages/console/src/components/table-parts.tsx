import type { ComponentChildren } from 'preact'
import { useState } from 'preact/hooks'

type Direction = 'ascending' | 'descending'
export interface SortOrder<C extends string> {
  column: C
  direction: Direction
}

/** A column's sort order: none at first (the API's order), then ascending, then descending. */
export function useSortOrder<C extends string>(): [SortOrder<C> | null, (column: C) => void] {
  const [order, setOrder] = useState<SortOrder<C> | null>(null)
  const toggle = (column: C) =>
    setOrder((previous) =>
      previous?.column === column && previous.direction === 'ascending'
        ? { column, direction: 'descending' }
        : { column, direction: 'ascending' }
    )
  return [order, toggle]
}

/** The rows in the order chosen, by each column's sort value; the API's order when none is chosen (and among equals). */
export function sortRows<T, C extends string>(
  rows: readonly T[],
  order: SortOrder<C> | null,
  valueOf: Record<C, (row: T) => string | number>
): T[] {
  if (order === null) return [...rows]
  const value = valueOf[order.column]
  const sign = order.direction === 'ascending' ? 1 : -1
  return rows
    .map((row, index) => ({ row, index, key: value(row) }))
    .sort((a, b) => {
      const compared = typeof a.key === 'number' && typeof b.key === 'number' ? a.key - b.key : String(a.key).localeCompare(String(b.key))
      return compared === 0 ? a.index - b.index : sign * compared
    })
    .map(({ row }) => row)
}

interface SortableHeaderProps<C extends string> {
  column: C
  label: string
  order: SortOrder<C> | null
  onSort: (column: C) => void
}

/** A column header that sorts the rows on screen; `aria-sort` says how they are sorted. */
export function SortableHeader<C extends string>({ column, label, order, onSort }: SortableHeaderProps<C>) {
  const direction = order?.column === column ? order.direction : undefined
  return (
    <th scope="col" aria-sort={direction}>
      <button type="button" class="sort" onClick={() => onSort(column)}>
        {label}
        <span aria-hidden="true" class="sort-mark">
          {direction === 'ascending' ? '▲' : direction === 'descending' ? '▼' : '↕'}
        </span>
      </button>
    </th>
  )
}

/**
 * A table's frame: scrolls sideways on a narrow screen, and can be reached with the keyboard to
 * do so. `busy` while newer rows load.
 */
export function TableFrame({ label, busy, children }: { label: string; busy: boolean; children: ComponentChildren }) {
  return (
    <div class="table-frame" role="region" aria-label={`${label}, scrollable`} tabIndex={0} aria-busy={busy}>
      {children}
    </div>
  )
}

/**
 * Cursor paging: a stack of the cursors of the pages seen, so Previous goes back without the API
 * paging backwards. A cursor holds only with the filters it came with: other filters (another
 * `filters` text) start again from the first page.
 */
export function usePages(filters: string): {
  cursor: string | undefined
  number: number
  next: (cursor: string) => void
  previous: () => void
} {
  const [state, setState] = useState<{ filters: string; stack: (string | undefined)[] }>({ filters, stack: [undefined] })
  const stack = state.filters === filters ? state.stack : [undefined]
  return {
    cursor: stack[stack.length - 1],
    number: stack.length,
    next: (cursor) => setState({ filters, stack: [...stack, cursor] }),
    previous: () => setState({ filters, stack: stack.length > 1 ? stack.slice(0, -1) : stack })
  }
}

interface PagerProps {
  label: string
  number: number
  hasNext: boolean
  onNext: () => void
  onPrevious: () => void
}

export function Pager({ label, number, hasNext, onNext, onPrevious }: PagerProps) {
  if (number === 1 && !hasNext) return null
  return (
    <nav class="pager" aria-label={label}>
      <button type="button" onClick={onPrevious} disabled={number === 1}>
        Previous page
      </button>
      <span>Page {number}</span>
      <button type="button" onClick={onNext} disabled={!hasNext}>
        Next page
      </button>
    </nav>
  )
}
