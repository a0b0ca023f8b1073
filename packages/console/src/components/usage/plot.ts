// The uPlot side of the usage chart: options and data. Outcomes are stacked (allowed at the
// bottom, rate limited, banned, then quota exceeded on top), so one glance shows a bucket's
// traffic and how much of it was refused.
import type { Granularity, UsageBucket } from '@animal-store/contract'
import uPlot from 'uplot'
import { count } from '../../labels.ts'
import { isoInZone, type Zone } from '../../time.ts'
import { SERIES } from './series.ts'

const HEIGHT = 260
const STEP_SECONDS: Record<Granularity, number> = { minute: 60, hour: 3600, day: 86_400 }
// Whole requests only: no tick at 0.5.
const COUNT_STEPS = Array.from({ length: 13 }, (_, power) => [1, 2, 5].map((step) => step * 10 ** power)).flat()
// uPlot paints in order: the tallest stack first, each outcome below painted over it.
const PAINT_ORDER = [...SERIES].reverse()

/** `10:15`, with the date under the first tick of each day: in the zone chosen, never a 12-hour clock. */
function timeTicks(splits: number[], zone: Zone): string[] {
  let previousDay = ''
  return splits.map((seconds) => {
    const iso = isoInZone(new Date(seconds * 1000), zone)
    const day = iso.slice(0, 10)
    const label = day === previousDay ? iso.slice(11, 16) : `${iso.slice(11, 16)}\n${day}`
    previousDay = day
    return label
  })
}

/**
 * Each outcome as the sum of itself and those below it, one point per bucket start plus one at
 * the end of the last bucket, so every bucket (the current one too) is drawn its whole width.
 */
export function stackedData(buckets: readonly UsageBucket[], granularity: Granularity): uPlot.AlignedData {
  const starts = buckets.map((bucket) => Date.parse(bucket.start) / 1000)
  const end = (starts.at(-1) ?? 0) + STEP_SECONDS[granularity]
  const stacks = PAINT_ORDER.map(({ field }) => {
    const below = SERIES.slice(0, SERIES.findIndex((series) => series.field === field) + 1)
    const values = buckets.map((bucket) => below.reduce((sum, series) => sum + bucket[series.field], 0))
    return [...values, values.at(-1) ?? 0]
  })
  return [[...starts, end], ...stacks]
}

export function plotOptions(element: HTMLElement, zone: Zone): uPlot.Options {
  const style = getComputedStyle(element)
  const css = (name: string) => style.getPropertyValue(name).trim()
  const axis = { stroke: css('--text-muted'), grid: { stroke: css('--grid') }, ticks: { stroke: css('--grid') } }
  return {
    width: element.clientWidth,
    height: HEIGHT,
    legend: { show: false },
    tzDate: zone === 'utc' ? (seconds) => uPlot.tzDate(new Date(seconds * 1000), 'Etc/UTC') : (seconds) => new Date(seconds * 1000),
    scales: { x: { time: true }, y: { range: (_plot, _min, max) => [0, Math.max(1, max)] } },
    axes: [
      { ...axis, values: (_plot, splits) => timeTicks(splits, zone) },
      { ...axis, size: 56, incrs: COUNT_STEPS, values: (_plot, splits) => splits.map(count) }
    ],
    series: [
      {},
      ...PAINT_ORDER.map(({ label, color }) => ({
        label,
        stroke: css(color),
        fill: css(color),
        width: 1,
        points: { show: false },
        paths: uPlot.paths.stepped?.({ align: 1 })
      }))
    ]
  }
}

/**
 * Keeps the plot as wide as its element. The new size is set in the next frame, and only when the
 * width changed: setting it inside the observer's callback can resize the element again (a
 * scrollbar coming or going), which the browser reports as a ResizeObserver loop error.
 */
export function followWidth(plot: uPlot, element: HTMLElement): () => void {
  let width = element.clientWidth
  let frame = 0
  const observer = new ResizeObserver(() => {
    if (element.clientWidth === width) return
    width = element.clientWidth
    cancelAnimationFrame(frame)
    frame = requestAnimationFrame(() => plot.setSize({ width, height: HEIGHT }))
  })
  observer.observe(element)
  return () => {
    observer.disconnect()
    cancelAnimationFrame(frame)
  }
}
