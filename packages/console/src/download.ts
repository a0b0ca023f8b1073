import { toCsv, type CsvValue } from './csv.ts'
import { isoInZone, type Zone } from './time.ts'

/**
 * Saves a file through a Blob URL and an `<a download>`: same-origin, so the page's CSP needs
 * nothing more, and nothing is sent anywhere.
 */
export function downloadFile(fileName: string, text: string, type: string): void {
  const url = URL.createObjectURL(new Blob([text], { type }))
  const link = document.createElement('a')
  link.href = url
  link.download = fileName
  document.body.append(link)
  link.click()
  link.remove()
  // The browser reads the Blob when the download starts; the URL can go a while later.
  window.setTimeout(() => URL.revokeObjectURL(url), 60_000)
}

/** Saves a CSV file, stamped to the second with the zone's offset: `keys-2026-11-27T10-15-00Z.csv`. */
export function downloadCsv(name: string, zone: Zone, header: readonly string[], rows: readonly (readonly CsvValue[])[]): void {
  const now = new Date(Math.floor(Date.now() / 1000) * 1000)
  downloadFile(`${name}-${isoInZone(now, zone).replaceAll(':', '-')}.csv`, toCsv(header, rows), 'text/csv;charset=utf-8')
}
