import { useState } from 'preact/hooks'
import { messageOf } from '../api/transport.ts'
import type { CsvValue } from '../csv.ts'
import { downloadCsv } from '../download.ts'
import { useView } from '../session.ts'
import type { Zone } from '../time.ts'

interface CsvTable {
  header: readonly string[]
  rows: readonly (readonly CsvValue[])[]
}

interface ExportCsvProps {
  /** The file's name before its time stamp: `keys` → `keys-2026-11-27T10-15-00Z.csv`. */
  name: string
  /** Everything the filters select (every page), with times written in the zone. */
  load: (zone: Zone) => Promise<CsvTable>
}

/** "Export CSV": downloads what the table's filters select, all of it, not only the page on screen. */
export function ExportCsv({ name, load }: ExportCsvProps) {
  const { zone } = useView()
  const [state, setState] = useState<{ busy: boolean; error: string | null }>({ busy: false, error: null })
  const run = async () => {
    if (state.busy) return
    setState({ busy: true, error: null })
    try {
      const table = await load(zone)
      downloadCsv(name, zone, table.header, table.rows)
      setState({ busy: false, error: null })
    } catch (error) {
      setState({ busy: false, error: `Export failed: ${messageOf(error)}` })
    }
  }
  return (
    <span class="export">
      <button type="button" onClick={() => void run()} aria-busy={state.busy}>
        Export CSV
      </button>
      {state.error !== null && (
        <span role="alert" class="error">
          {state.error}
        </span>
      )}
    </span>
  )
}
