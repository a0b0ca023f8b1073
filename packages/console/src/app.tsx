import type { Operator } from '@animal-store/contract'
import type { ComponentChildren } from 'preact'
import { useEffect, useMemo, useState } from 'preact/hooks'
import { operatorApi } from './api/operations.ts'
import { ApiError, createSend, messageOf } from './api/transport.ts'
import { Status } from './components/notices.tsx'
import { CustomerPage } from './customers/customer-page.tsx'
import { CustomersScreen } from './customers/customers-screen.tsx'
import { useApiData } from './hooks/use-api-data.ts'
import { useRoute } from './hooks/use-route.ts'
import { PlansContext } from './plans/context.ts'
import type { Route } from './routes.ts'
import { AuditScreen } from './screens/audit.tsx'
import { BansScreen } from './screens/bans.tsx'
import { KeyPage } from './screens/key-page.tsx'
import { KeysScreen } from './screens/keys.tsx'
import { PlansScreen } from './screens/plans.tsx'
import { SignIn } from './screens/sign-in.tsx'
import { UsageScreen } from './screens/usage.tsx'
import { SessionContext, storedToken, useSession, ViewContext, type Session, type View } from './session.ts'
import { Shell } from './shell.tsx'
import type { Zone } from './time.ts'

type Phase = { kind: 'resuming' } | { kind: 'signed-out'; notice: string | null } | { kind: 'signed-in'; session: Session }

const AUTO_REFRESH_MS = 10_000
const ZONE_ITEM = 'animal-store.zone'

function Screen({ route }: { route: Route }) {
  switch (route.screen) {
    case 'keys':
      return <KeysScreen />
    case 'key':
      return <KeyPage key={route.id} id={route.id} />
    case 'customers':
      return <CustomersScreen />
    case 'customer':
      return <CustomerPage key={route.id} id={route.id} />
    case 'plans':
      return <PlansScreen />
    case 'usage':
      return <UsageScreen />
    case 'bans':
      return <BansScreen />
    case 'audit':
      return <AuditScreen />
  }
}

/** The plans, for every screen: loaded at sign-in and again on every refresh (ViewContext's tick). */
function PlansProvider({ children }: { children: ComponentChildren }) {
  const { api } = useSession()
  const plans = useApiData((signal) => api.listPlans(signal), [])
  return <PlansContext.Provider value={plans}>{children}</PlansContext.Provider>
}

export function App() {
  const route = useRoute()
  const [phase, setPhase] = useState<Phase>(() =>
    storedToken.read() === null ? { kind: 'signed-out', notice: null } : { kind: 'resuming' }
  )
  const [zone, setZone] = useState<Zone>(() => (window.sessionStorage.getItem(ZONE_ITEM) === 'local' ? 'local' : 'utc'))
  const [tick, setTick] = useState(0)
  const [autoRefresh, setAutoRefresh] = useState(false)

  const signOut = (notice: string | null) => {
    storedToken.clear()
    setAutoRefresh(false)
    setPhase({ kind: 'signed-out', notice })
  }
  // Any 401 (a revoked or unknown token) ends the session: back to sign-in, token forgotten.
  const signIn = (token: string, operator: Operator) => {
    storedToken.write(token)
    const api = operatorApi(createSend(token, (error) => signOut(`You were signed out: ${error.message}.`)))
    setPhase({ kind: 'signed-in', session: { operator, api, canWrite: operator.role === 'admin' } })
  }

  // A reload keeps the tab's session: the stored token is checked again.
  useEffect(() => {
    const token = storedToken.read()
    if (phase.kind !== 'resuming' || token === null) return
    operatorApi(createSend(token, () => undefined))
      .currentOperator()
      .then(
        (operator) => signIn(token, operator),
        (error: unknown) =>
          error instanceof ApiError && error.status === 401
            ? signOut(`You were signed out: ${error.message}.`)
            : setPhase({ kind: 'signed-out', notice: `Could not sign in again: ${messageOf(error)}` })
      )
  }, [])

  useEffect(() => {
    if (!autoRefresh) return
    // A tab in the background asks nothing: the next tick after it is shown again catches up.
    const timer = window.setInterval(() => {
      if (!document.hidden) setTick((n) => n + 1)
    }, AUTO_REFRESH_MS)
    return () => window.clearInterval(timer)
  }, [autoRefresh])

  const view = useMemo<View>(() => ({ zone, tick, refresh: () => setTick((n) => n + 1) }), [zone, tick])

  if (phase.kind === 'resuming') return <Status>Signing in…</Status>
  if (phase.kind === 'signed-out') return <SignIn notice={phase.notice} onSignedIn={signIn} />
  const chooseZone = (next: Zone) => {
    window.sessionStorage.setItem(ZONE_ITEM, next)
    setZone(next)
  }
  return (
    <SessionContext.Provider value={phase.session}>
      <ViewContext.Provider value={view}>
        <PlansProvider>
          <Shell
            route={route}
            zone={zone}
            onZone={chooseZone}
            autoRefresh={autoRefresh}
            onAutoRefresh={setAutoRefresh}
            onRefresh={view.refresh}
            onSignOut={() => signOut(null)}
          >
            <Screen route={route} />
          </Shell>
        </PlansProvider>
      </ViewContext.Provider>
    </SessionContext.Provider>
  )
}
