// Who is signed in, and the console's view settings, shared by every screen.
import type { Operator } from '@animal-store/contract'
import { createContext } from 'preact'
import { useContext } from 'preact/hooks'
import type { OperatorApi } from './api/operations.ts'
import type { Zone } from './time.ts'

// sessionStorage only: the token dies with the tab, is never sent by the browser on its own (as a
// cookie would be), and is not left behind on disk for the next user of the machine.
const TOKEN_ITEM = 'animal-store.operator-token'

export const storedToken = {
  read: (): string | null => window.sessionStorage.getItem(TOKEN_ITEM),
  write: (token: string): void => window.sessionStorage.setItem(TOKEN_ITEM, token),
  clear: (): void => window.sessionStorage.removeItem(TOKEN_ITEM)
}

export interface Session {
  operator: Operator
  api: OperatorApi
  /** Admins change keys; viewers see no control that writes. */
  canWrite: boolean
}

export interface View {
  zone: Zone
  /** Grows by one on every refresh: data hooks load again when it changes. */
  tick: number
  refresh: () => void
}

export const SessionContext = createContext<Session | null>(null)
export const ViewContext = createContext<View>({ zone: 'utc', tick: 0, refresh: () => undefined })

export function useSession(): Session {
  const session = useContext(SessionContext)
  if (session === null) throw new Error('useSession outside a signed-in console')
  return session
}

export const useView = (): View => useContext(ViewContext)
