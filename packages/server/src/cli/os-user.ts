import { userInfo } from 'node:os'
import type { Actor } from '../domain/actor.ts'

/** The OS user running the command: who the changes it makes are by, in the audit log. */
export function osUser(): Actor {
  let name: string
  try {
    name = userInfo().username
  } catch {
    // No entry for this uid in the user database (a container's arbitrary uid).
    name = process.env.USER ?? process.env.LOGNAME ?? `uid ${process.getuid?.() ?? 'unknown'}`
  }
  return { type: 'cli', id: name, name }
}
