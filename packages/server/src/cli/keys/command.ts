import { parseArgs } from 'node:util'
import { compose } from '../../compose.ts'
import type { Config } from '../../config.ts'
import { KeyInputError, KeyNotFoundError, KeyRevokedError, type KeyTerm } from '../../domain/keys/errors.ts'
import { KEYS_HELP } from './help.ts'
import { table, usageText } from './table.ts'
import { osUser } from '../os-user.ts'
import { UsageError } from '../usage-error.ts'

/** The flag that sets each term the key service names in its messages. */
const FLAGS: Record<KeyTerm, string> = {
  customerId: '--customer',
  plan: '--plan',
  name: '--name',
  perMinute: '--per-minute',
  perDay: '--per-day',
  expiresAt: '--expires-at',
  scopes: '--scopes',
  noExpiry: '--no-expiry',
  graceSeconds: '--grace'
}

/** The key service's refusals as usage errors (one line, exit 2), naming flags where it names fields. */
function asUsageError(error: unknown): unknown {
  if (error instanceof KeyInputError) return new UsageError(error.describe((term) => FLAGS[term]))
  if (error instanceof KeyNotFoundError || error instanceof KeyRevokedError) return new UsageError(error.message)
  return error
}

const scopeText = (scopes: readonly string[]) => (scopes.length === 0 ? 'no scopes' : scopes.join(' '))

/** A flag's digits as a number; the key service judges the number. */
function number(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined
  if (!/^[0-9]+$/.test(value)) throw new UsageError(`${flag} must be a whole number (got ${JSON.stringify(value)})`)
  return Number(value)
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
          customer: { type: 'string' },
          plan: { type: 'string' },
          name: { type: 'string' },
          'per-minute': { type: 'string' },
          'per-day': { type: 'string' },
          'expires-at': { type: 'string' },
          'no-expiry': { type: 'boolean' },
          scopes: { type: 'string' },
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
    create: ['customer', 'plan', 'name', 'per-minute', 'per-day', 'scopes', 'expires-at', 'json'],
    list: ['json'],
    update: ['plan', 'name', 'per-minute', 'per-day', 'scopes', 'expires-at', 'no-expiry', 'json'],
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
  if (command === 'create' && values.plan === undefined && values.customer === undefined)
    throw new UsageError(
      'keys create needs --customer <customer id> (animal-store customers list) or --plan <plan id> for a customer of its own (animal-store plans list)'
    )
  if (values['expires-at'] !== undefined && values['no-expiry'] === true)
    throw new UsageError('give either --expires-at or --no-expiry, not both')
  const perMinute = number('--per-minute', values['per-minute'])
  const perDay = number('--per-day', values['per-day'])
  const graceSeconds = number('--grace', values.grace)
  // `--scopes ''` is a key that may do nothing but read its own limits; the key service judges each name.
  const scopes = values.scopes === undefined ? undefined : values.scopes.split(',').filter((scope) => scope !== '')
  const id = positionals[0] ?? ''

  const services = await compose(config, { role: 'cli' })
  const keys = services.keys
  const actor = osUser()
  const json = (value: unknown) => process.stdout.write(`${JSON.stringify(value)}\n`)
  try {
    switch (command) {
      case 'create': {
        // Both --customer and --plan travel as given: the key service refuses the pair, naming both flags.
        const input = {
          customerId: values.customer,
          plan: values.plan,
          name: values.name,
          perMinute,
          perDay,
          scopes,
          expiresAt: values['expires-at']
        }
        const { key, view } = await keys.create(input, actor)
        if (values.json === true) json({ ...view, key })
        else
          process.stdout.write(
            `Created key ${view.id} for ${view.customerId} (${view.plan}, ${view.limits.perMinute}/min, ${view.limits.perDay}/day, ${scopeText(view.scopes)}).\n` +
              `Secret (shown once, store it now):\n${key}\n`
          )
        return
      }
      case 'update': {
        const expiresAt = values['no-expiry'] === true ? null : values['expires-at']
        const { view } = await keys.update(id, { plan: values.plan, name: values.name, perMinute, perDay, scopes, expiresAt }, actor)
        if (values.json === true) json(view)
        else
          process.stdout.write(
            `Updated ${view.id} (${view.plan}, ${view.limits.perMinute}/min, ${view.limits.perDay}/day, ${scopeText(view.scopes)}); ` +
              'every instance applies it within 5 seconds.\n'
          )
        return
      }
      case 'rotate': {
        const { key, view } = await keys.rotate(id, { graceSeconds }, actor)
        if (values.json === true) json({ ...view, key })
        else
          process.stdout.write(
            `Rotated ${view.id}; the old secret works until ${view.previousSecretExpiresAt ?? 'now'} and is refused after.\n` +
              `New secret (shown once, store it now):\n${key}\n`
          )
        return
      }
      case 'usage': {
        const usage = await keys.usage(id)
        process.stdout.write(values.json === true ? `${JSON.stringify(usage)}\n` : usageText(usage))
        return
      }
      case 'list': {
        const list = await keys.list()
        process.stdout.write(values.json === true ? `${JSON.stringify(list)}\n` : list.length === 0 ? 'No keys.\n' : `${table(list)}\n`)
        return
      }
      case 'revoke': {
        const { view, event } = await keys.revoke(id, actor)
        process.stdout.write(
          event === null
            ? `${id} was already revoked at ${view.revokedAt}.\n`
            : `Revoked ${id}; every instance refuses it within 5 seconds.\n`
        )
        return
      }
      case 'unban':
        await keys.unban(id, actor)
        process.stdout.write(`Lifted any ban on ${id}; serving instances apply it within a second.\n`)
    }
  } catch (error) {
    throw asUsageError(error)
  } finally {
    await services.close()
  }
}
