import { parseArgs } from 'node:util'
import { PLAN_NAMES } from '@animal-store/contract'
import { compose } from '../compose.ts'
import type { Config } from '../config.ts'
import { KeyInputError, type KeyView } from '../domain/keys.ts'
import { UsageError } from './usage-error.ts'

export const KEYS_HELP = `Usage: animal-store keys <command> [options]

Commands:
  create --plan <${PLAN_NAMES.join('|')}> [--name TEXT] [--per-minute N] [--per-day N] [--expires-at ISO8601] [--json]
         Creates a key and prints its secret once. Enterprise keys need --per-minute and --per-day;
         on other plans they override the plan's numbers.
  list [--json]      Lists keys (never their secrets).
  revoke <id>        Revokes a key; every instance refuses it within 5 seconds.
  unban <id>         Lifts a temporary ban.
`

function wholeNumber(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined
  if (!/^[0-9]+$/.test(value) || !Number.isSafeInteger(Number(value)) || Number(value) < 1)
    throw new UsageError(`${flag} must be a whole number of at least 1 (got ${JSON.stringify(value)})`)
  return Number(value)
}

function table(keys: KeyView[]): string {
  const rows = keys.map((k) => [
    k.id,
    k.name ?? '',
    k.plan,
    `${k.limits.perMinute}/min ${k.limits.perDay}/day`,
    `${k.usage.minute}/min ${k.usage.day}/day`,
    k.createdAt,
    k.expiresAt ?? '-',
    k.revokedAt ?? '-',
    k.bannedUntil ?? '-'
  ])
  const header = ['ID', 'NAME', 'PLAN', 'LIMITS', 'USED', 'CREATED', 'EXPIRES', 'REVOKED', 'BANNED UNTIL']
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)))
  return [header, ...rows]
    .map((r) =>
      r
        .map((cell, i) => cell.padEnd(widths[i]!))
        .join('  ')
        .trimEnd()
    )
    .join('\n')
}

export async function keysCommand(config: Config, argv: string[]): Promise<void> {
  const [command, ...rest] = argv
  if (command === undefined || command === '--help' || command === '-h') {
    process.stdout.write(KEYS_HELP)
    if (command === undefined) throw new UsageError('keys needs a command: create, list, revoke or unban')
    return
  }
  const parsed = (() => {
    try {
      return parseArgs({
        args: rest,
        allowPositionals: true,
        strict: true,
        options: {
          plan: { type: 'string' },
          name: { type: 'string' },
          'per-minute': { type: 'string' },
          'per-day': { type: 'string' },
          'expires-at': { type: 'string' },
          json: { type: 'boolean' },
          help: { type: 'boolean', short: 'h' }
        }
      })
    } catch (error) {
      throw new UsageError((error as Error).message)
    }
  })()
  const { values, positionals } = parsed
  if (values.help === true) {
    process.stdout.write(KEYS_HELP)
    return
  }
  const allowed: Record<string, string[]> = {
    create: ['plan', 'name', 'per-minute', 'per-day', 'expires-at', 'json'],
    list: ['json'],
    revoke: [],
    unban: []
  }
  const flags = allowed[command]
  if (flags === undefined) throw new UsageError(`unknown keys command ${JSON.stringify(command)}: expected create, list, revoke or unban`)
  const extra = Object.keys(values).filter((flag) => !flags.includes(flag))
  if (extra.length > 0) throw new UsageError(`keys ${command} does not take --${extra.join(', --')}`)
  const wantsId = command === 'revoke' || command === 'unban'
  if (wantsId ? positionals.length !== 1 : positionals.length !== 0) {
    throw new UsageError(
      wantsId ? `keys ${command} takes exactly one key id` : `keys ${command} takes no positional arguments (got ${positionals.join(' ')})`
    )
  }
  if (command === 'create' && values.plan === undefined) throw new UsageError(`keys create needs --plan <${PLAN_NAMES.join('|')}>`)
  const perMinute = wholeNumber('--per-minute', values['per-minute'])
  const perDay = wholeNumber('--per-day', values['per-day'])

  const services = await compose(config, { role: 'admin' })
  const { keys } = services
  try {
    switch (command) {
      case 'create': {
        const created = await keys
          .create({ plan: values.plan!, name: values.name, perMinute, perDay, expiresAt: values['expires-at'] })
          .catch((error: unknown) => {
            throw error instanceof KeyInputError ? new UsageError(error.message) : error
          })
        if (values.json === true) {
          process.stdout.write(`${JSON.stringify({ ...created.view, key: created.key })}\n`)
        } else {
          const { id, plan, limits } = created.view
          process.stdout.write(
            `Created key ${id} (${plan}, ${limits.perMinute}/min, ${limits.perDay}/day).\n` +
              `Secret (shown once, store it now):\n${created.key}\n`
          )
        }
        return
      }
      case 'list': {
        const list = await keys.list()
        process.stdout.write(values.json === true ? `${JSON.stringify(list)}\n` : list.length === 0 ? 'No keys.\n' : `${table(list)}\n`)
        return
      }
      case 'revoke':
      case 'unban': {
        const id = positionals[0]!
        const found = command === 'revoke' ? await keys.revoke(id) : await keys.unban(id)
        if (!found) throw new UsageError(`no key has id ${JSON.stringify(id)}`)
        process.stdout.write(
          command === 'revoke'
            ? `Revoked ${id}; every instance refuses it within 5 seconds.\n`
            : `Lifted any ban on ${id}; serving instances apply it within a second.\n`
        )
      }
    }
  } finally {
    await services.close()
  }
}
