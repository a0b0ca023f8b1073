import type { Key } from '@animal-store/contract'
import { useEffect, useState } from 'preact/hooks'
import { ExportCsv } from '../components/export-csv.tsx'
import { KeyCells } from '../components/key-cells.tsx'
import { ErrorAlert, Status } from '../components/notices.tsx'
import { ScreenHeading } from '../components/screen-heading.tsx'
import { TableFrame } from '../components/table-parts.tsx'
import { Time } from '../components/time.tsx'
import { useApiData } from '../hooks/use-api-data.ts'
import { useAction } from '../hooks/use-action.ts'
import { useNow } from '../hooks/timers.ts'
import { keyTitle } from '../keys/state.ts'
import { useSession, useView } from '../session.ts'
import { isoInZone, timeLeft, type Zone } from '../time.ts'

/** Keys banned now, soonest end first, each with its time left counting down. */
export function BansScreen() {
  const { api, canWrite } = useSession()
  const { refresh } = useView()
  const bans = useApiData((signal) => api.listBans(signal), [])
  const now = useNow(1000)
  const unban = useAction()
  const [done, setDone] = useState('')
  const ended = (bans.data ?? []).some((key) => key.bannedUntil !== null && Date.parse(key.bannedUntil) <= now)
  // A ban that ran out leaves the list: ask again rather than show it at 0:00.
  useEffect(() => {
    if (ended) refresh()
  }, [ended])

  const lift = async (key: Key) => {
    if ((await unban.run(() => api.unbanKey(key.id))) === undefined) return
    setDone(`${keyTitle(key)} is no longer banned.`)
    // Its row goes away: keep the keyboard on the screen.
    document.querySelector<HTMLElement>('main h1')?.focus()
    refresh()
  }

  const exportBans = async (zone: Zone) => ({
    header: ['Name', 'ID', 'Plan', 'Banned until'],
    rows: (await api.listBans()).map((key) => [
      key.name,
      key.id,
      key.plan,
      key.bannedUntil === null ? null : isoInZone(key.bannedUntil, zone)
    ])
  })

  return (
    <>
      <ScreenHeading>Bans</ScreenHeading>
      <div class="toolbar">
        <ExportCsv name="bans" load={exportBans} />
      </div>
      <ErrorAlert message={bans.error ?? unban.error} />
      <TableFrame label="Bans" busy={bans.loading}>
        <table>
          <caption class="visually-hidden">Bans</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">ID</th>
              <th scope="col">Plan</th>
              <th scope="col">Banned until</th>
              <th scope="col">Time left</th>
              {canWrite && (
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              )}
            </tr>
          </thead>
          <tbody>
            {(bans.data ?? []).map((key: Key) => (
              <tr key={key.id}>
                <KeyCells keyData={key} />
                <td>
                  <Time value={key.bannedUntil} />
                </td>
                <td class="number">{key.bannedUntil === null ? '—' : timeLeft(key.bannedUntil, now)}</td>
                {canWrite && (
                  <td>
                    <button type="button" onClick={() => void lift(key)}>
                      Unban
                    </button>
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      </TableFrame>
      {done !== '' && <Status>{done}</Status>}
      {bans.data === undefined && bans.error === null && <Status>Loading bans…</Status>}
      {bans.data?.length === 0 && <Status>No key is banned now.</Status>}
    </>
  )
}
