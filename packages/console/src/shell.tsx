import type { ComponentChildren } from 'preact'
import type { Route } from './routes.ts'
import { useSession } from './session.ts'
import type { Zone } from './time.ts'

const SECTIONS = [
  { href: '#/keys', label: 'Keys', screens: ['keys', 'key'] },
  { href: '#/customers', label: 'Customers', screens: ['customers', 'customer'] },
  { href: '#/plans', label: 'Plans', screens: ['plans'] },
  { href: '#/usage', label: 'Usage', screens: ['usage'] },
  { href: '#/bans', label: 'Bans', screens: ['bans'] },
  { href: '#/audit', label: 'Audit', screens: ['audit'] }
] as const

interface ShellProps {
  route: Route
  zone: Zone
  onZone: (zone: Zone) => void
  autoRefresh: boolean
  onAutoRefresh: (on: boolean) => void
  onRefresh: () => void
  onSignOut: () => void
  children: ComponentChildren
}

/** The frame around every screen: navigation, Refresh, Auto-refresh, the time zone, who is signed in. */
export function Shell({ route, zone, onZone, autoRefresh, onAutoRefresh, onRefresh, onSignOut, children }: ShellProps) {
  const { operator } = useSession()
  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="masthead">
        <p class="brand">Animal Store console</p>
        <nav aria-label="Sections">
          <ul>
            {SECTIONS.map((section) => (
              <li key={section.href}>
                <a href={section.href} aria-current={(section.screens as readonly string[]).includes(route.screen) ? 'page' : undefined}>
                  {section.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <div class="controls">
          <button type="button" onClick={onRefresh}>
            Refresh
          </button>
          <button type="button" aria-pressed={autoRefresh} onClick={() => onAutoRefresh(!autoRefresh)} title="Every 10 seconds">
            Auto-refresh
          </button>
          <div role="group" aria-label="Time zone" class="segmented">
            <button type="button" aria-pressed={zone === 'utc'} onClick={() => onZone('utc')}>
              UTC
            </button>
            <button type="button" aria-pressed={zone === 'local'} onClick={() => onZone('local')}>
              Local
            </button>
          </div>
          <span class="operator">
            {operator.name} <span class="muted">({operator.role})</span>
          </span>
          <button type="button" onClick={onSignOut}>
            Sign out
          </button>
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        {children}
      </main>
    </>
  )
}
