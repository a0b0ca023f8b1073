import { parseArgs } from 'node:util'
import { PLAN_NAMES } from '@animal-store/contract'
import { compose } from '../compose.ts'
import type { Config } from '../config.ts'
import { KeyInputError } from '../domain/key-changes.ts'
import type { KeyService } from '../domain/keys.ts'
import { table, usageText } from './keys-table.ts'
import { UsageError } from './usage-error.ts'

export const KEYS_HELP = `Usage: animal-store keys <command> [options]

Commands:
  create --plan <${PLAN_NAMES.join('|')}> [--name TEXT] [--per-minute N] [--per-day N] [--expires-at ISO8601] [--json]
         Creates a key and prints its secret once. Enterprise keys need --per-minute and --per-day;
         on other plans they override the plan's numbers.
  list [--json]      Lists keys (never their secrets).
  update <id> [--plan P] [--per-minute N] [--per-day N] [--name TEXT] [--expires-at ISO8601 | --no-expiry] [--json]
         Changes a key in place, same secret; every instance applies it within 5 seconds. Usage in the
         current windows and any ban are kept. A new --plan drops earlier overrides unless given again.
  rotate <id> [--grace SECONDS] [--json]
         Issues a new secret for the key (same id, plan, usage and ban) and prints it once. The old
         secret keeps working for --grace seconds (default 86400, at most 2592000; 0 ends it at once).
  usage <id> [--json]
         The key's use of its minute and day windows and any ban.
  revoke <id>        Revokes a key; every instance refuses it within 5 seconds.
  unban <id>         Lifts a temporary ban.
`

function wholeNumber(flag: string, value: string | undefined, min = 1): number | undefined {
  if (value === undefined) return undefined
  if (!/^[0-9]+$/.test(value) || !Number.isSafeInteger(Number(value)) || Number(value) < min)
    throw new UsageError(`${flag} must be a whole number of at least ${min} (got ${JSON.stringify(value)})`)
  return Number(value)
}

/** The key service, with its refusals of bad input turned into usage errors (one line, exit 2). */
function refusingBadInput(keys: KeyService): Pick<KeyService, 'create' | 'update' | 'rotate' | 'usage' | 'list'> {
  const refuse = (error: unknown) => {
    throw error instanceof KeyInputError ? new UsageError(error.message) : error
  }
  return {
    create: (input) => keys.create(input).catch(refuse),
    update: (id, input) => keys.update(id, input).catch(refuse),
    rotate: (id, grace) => keys.rotate(id, grace).catch(refuse),
    usage: (id) => keys.usage(id).catch(refuse),
    list: () => keys.list()
  }
}

export async function keysCommand(config: Config, argv: string[]): Promise<void> {
  const [command, ...rest] = argv
  if (command === undefined || command === '--help' || command === '-h') {
    process.stdout.write(KEYS_HELP)
    if (command === undefined) throw new UsageError('keys needs a command: create, list, update, rotate, usage, revoke or unban')
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
          'no-expiry': { type: 'boolean' },
          grace: { type: 'string' },
          json: { type: 'boolean' },
          help: { type: 'boolean', short: 'h' }
        }
      })
    } catch (error) {
      throw new UsageError((error as Error).message.replace(/\s*\n\s*/g, ' '))
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
    update: ['plan', 'name', 'per-minute', 'per-day', 'expires-at', 'no-expiry', 'json'],
    rotate: ['grace', 'json'],
    usage: ['json'],
    revoke: [],
    unban: []
  }
  const flags = allowed[command]
  if (flags === undefined)
    throw new UsageError(`unknown keys command ${JSON.stringify(command)}: expected create, list, update, rotate, usage, revoke or unban`)
  const extra = Object.keys(values).filter((flag) => !flags.includes(flag))
  if (extra.length > 0) throw new UsageError(`keys ${command} does not take --${extra.join(', --')}`)
  const wantsId = command !== 'create' && command !== 'list'
  if (wantsId ? positionals.length !== 1 : positionals.length !== 0) {
    throw new UsageError(
      wantsId ? `keys ${command} takes exactly one key id` : `keys ${command} takes no positional arguments (got ${positionals.join(' ')})`
    )
  }
  if (command === 'create' && values.plan === undefined) throw new UsageError(`keys create needs --plan <${PLAN_NAMES.join('|')}>`)
  const perMinute = wholeNumber('--per-minute', values['per-minute'])
  const perDay = wholeNumber('--per-day', values['per-day'])
  const grace = values.grace === undefined ? 86_400 : wholeNumber('--grace', values.grace, 0)

  const services = await compose(config, { role: 'cli' })
  const keys = refusingBadInput(services.keys)
  const json = (value: unknown) => process.stdout.write(`${JSON.stringify(value)}\n`)
  try {
    switch (command) {
      case 'create': {
        const created = await keys.create({ plan: values.plan!, name: values.name, perMinute, perDay, expiresAt: values['expires-at'] })
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
      case 'update': {
        const input = {
          plan: values.plan,
          name: values.name,
          perMinute,
          perDay,
          expiresAt: values['expires-at'],
          noExpiry: values['no-expiry']
        }
        const updated = await keys.update(positionals[0]!, input)
        if (values.json === true) json(updated)
        else
          process.stdout.write(
            `Updated ${updated.id} (${updated.plan}, ${updated.limits.perMinute}/min, ${updated.limits.perDay}/day); ` +
              'every instance applies it within 5 seconds.\n'
          )
        return
      }
      case 'rotate': {
        const { key, view } = await keys.rotate(positionals[0]!, grace!)
        if (values.json === true) json({ ...view, key })
        else
          process.stdout.write(
            `Rotated ${view.id}; the old secret works until ${view.previousSecretExpiresAt ?? 'now'} and is refused after.\n` +
              `New secret (shown once, store it now):\n${key}\n`
          )
        return
      }
      case 'usage': {
        const usage = await keys.usage(positionals[0]!)
        if (values.json === true) json(usage)
        else process.stdout.write(usageText(usage))
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
        const found = command === 'revoke' ? await services.keys.revoke(id) : await services.keys.unban(id)
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
