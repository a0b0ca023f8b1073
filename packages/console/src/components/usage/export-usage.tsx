import { useId, useState } from 'preact/hooks'
import { downloadFile } from '../../download.ts'
import type { Action } from '../../hooks/use-action.ts'
import { EXPORT_FORMAT_LABELS, EXPORT_FORMAT_NAMES } from '../../labels.ts'
import { useSession } from '../../session.ts'
import { exportFileName, exportQuery, type ExportFormat } from '../../usage-export.ts'
import { rangeBounds, type UsageRange } from '../../usage-range.ts'

/**
 * "Export usage": the billing export (NDJSON) of the range on screen, widened to whole hours (or
 * days), saved as a file in the format chosen. `action` runs it: the screen shows its error.
 */
export function ExportUsage({ range, action }: { range: UsageRange; action: Action }) {
  const { api } = useSession()
  const id = useId()
  const [format, setFormat] = useState<ExportFormat>('cloudevents')

  const run = () =>
    action.run(async () => {
      const query = exportQuery(rangeBounds(range, Date.now()), range.granularity, format)
      downloadFile(exportFileName(query), await api.exportUsage(query), 'application/x-ndjson')
    })

  return (
    <div class="export-usage">
      <label for={`${id}-format`}>Export format</label>
      <select id={`${id}-format`} value={format} onChange={(event) => setFormat(event.currentTarget.value as ExportFormat)}>
        {EXPORT_FORMAT_NAMES.map((name) => (
          <option key={name} value={name}>
            {EXPORT_FORMAT_LABELS[name]}
          </option>
        ))}
      </select>
      {/* aria-disabled, not disabled, while it runs: the button keeps the focus, and "Exporting…" is heard. */}
      <button type="button" onClick={() => void run()} aria-disabled={action.busy} aria-busy={action.busy}>
        {action.busy ? 'Exporting…' : 'Export usage'}
      </button>
    </div>
  )
}
