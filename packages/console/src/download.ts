import { toCsv, type CsvValue } from './csv.ts'
import { isoInZone, type Zone } from './time.ts'

/**
 * Saves a CSV file through a Blob URL and an `<a download>`: same-origin, so the page's CSP
 * needs nothing more, and nothing is sent anywhere.
 */
export function downloadCsv(name: string, zone: Zone, header: readonly string[], rows: readonly (readonly CsvValue[])[]): void {
  const url = URL.createObjectURL(new Blob([toCsv(header, rows)], { type: 'text/csv;charset=utf-8' }))
  const link = document.createElement('a')
  link.href = url
  // Stamped to the second, with the zone's offset: `keys-2026-11-27T10-15-00Z.csv`.
  const now = new Date(Math.floor(Date.now() / 1000) * 1000)
  link.download = `${name}-${isoInZone(now, zone).replaceAll(':', '-')}.csv`
  document.body.append(link)
  link.click()
  link.remove()
  // The browser reads the Blob when the download starts; the URL can go a while later.
  window.setTimeout(() => URL.revokeObjectURL(url), 60_000)
}
