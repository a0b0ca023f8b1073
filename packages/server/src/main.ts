import { BACKUP_HELP, backupCommand } from './cli/database/backup.ts'
import { CHECK_HELP, checkCommand } from './cli/database/check.ts'
import { customersCommand, CUSTOMERS_HELP } from './cli/customers/command.ts'
import { HEALTHCHECK_HELP, healthcheckCommand } from './cli/healthcheck.ts'
import { keysCommand } from './cli/keys/command.ts'
import { KEYS_HELP } from './cli/keys/help.ts'
import { operatorsCommand, OPERATORS_HELP } from './cli/operators.ts'
import { plansCommand, PLANS_HELP } from './cli/plans/command.ts'
import { serve } from './cli/serve.ts'
import { UsageError } from './cli/usage-error.ts'
import { usageCommand, USAGE_HELP } from './cli/usage.ts'
import { ConfigError, loadConfig } from './config.ts'
import { compose } from './compose.ts'
import { openApiText } from './routes/openapi.ts'

const HELP = `Usage: animal-store <command>

Commands:
  serve              Serves the API (applies pending migrations first).
  migrate            Applies pending schema migrations and exits.
  keys ...           Creates, lists, updates, rotates, revokes and unbans API keys, and shows
                     their use (animal-store keys --help).
  customers ...      Lists, creates, changes and unbans customers: who holds keys and whose
                     limits they share (animal-store help customers).
  operators ...      Creates, lists and revokes the operators who sign in to the operator API
                     on ADMIN_PORT (animal-store help operators).
  plans ...          Lists, creates, changes and deletes plans: the limits customers on them
                     share (animal-store help plans).
  usage export ...   Prints the billing export: requests per customer and closed hour or day, as
                     CloudEvents or Stripe meter events (animal-store help usage).
  backup <file>      Writes a consistent, checked copy of the SQLite file, also while serve runs
                     (animal-store help backup).
  check              Checks the database and whether this build can serve its schema, without
                     changing it (animal-store help check).
  healthcheck        Exits 0 when the local serve process answers /readyz 200, 1 otherwise
                     (animal-store help healthcheck).
  openapi            Prints the OpenAPI 3.1 document.

Configuration comes from the environment (the README's table gives defaults and meanings):
  listening     PORT, HOST, PUBLIC_BASE_URL, STAGING_BASE_URL, TRUST_PROXY
  operators     ADMIN_HOST, ADMIN_PORT (off turns the operator listener off)
  database      DATABASE_URL; with postgres://...: DATABASE_POOL_SIZE,
                DATABASE_STATEMENT_TIMEOUT_MS, DATABASE_CONNECT_TIMEOUT_MS
  rate limits   REDIS_URL or REDIS_CLUSTER_NODES, REDIS_KEY_PREFIX, RATE_LIMIT_BAN_SECONDS,
                RATE_LIMIT_IPV6_PREFIX, RATE_LIMIT_MAX_ADDRESSES
  requests      HEADERS_TIMEOUT_MS, REQUEST_TIMEOUT_MS, KEEP_ALIVE_TIMEOUT_MS, PAGE_CACHE_ENTRIES
  logs          LOG_LEVEL
  tracing       OTEL_EXPORTER_OTLP_ENDPOINT (or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) turns it on;
                OTEL_EXPORTER_OTLP_PROTOCOL, OTEL_EXPORTER_OTLP_HEADERS, OTEL_SERVICE_NAME,
                OTEL_TRACES_SAMPLER, OTEL_TRACES_SAMPLER_ARG

${KEYS_HELP}`

/** Commands with a usage text of their own (`help <command>`, `<command> --help`). */
const COMMAND_HELP: Record<string, string> = {
  backup: BACKUP_HELP,
  check: CHECK_HELP,
  customers: CUSTOMERS_HELP,
  healthcheck: HEALTHCHECK_HELP,
  keys: KEYS_HELP,
  operators: OPERATORS_HELP,
  plans: PLANS_HELP,
  usage: USAGE_HELP
}

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write((command === 'help' && rest[0] !== undefined ? COMMAND_HELP[rest[0]] : undefined) ?? HELP)
    if (command === undefined) process.exitCode = 2
    return
  }
  const ownHelp = ['keys', 'customers', 'operators', 'plans', 'usage']
  if (!ownHelp.includes(command) && (rest.includes('--help') || rest.includes('-h'))) {
    process.stdout.write(COMMAND_HELP[command] ?? HELP)
    return
  }
  const config = loadConfig()
  switch (command) {
    case 'serve':
      if (rest.length > 0) throw new UsageError(`serve takes no arguments (got ${rest.join(' ')}); configure it with environment variables`)
      return serve(config)
    case 'migrate': {
      if (rest.length > 0) throw new UsageError('migrate takes no arguments')
      const services = await compose(config, { role: 'cli' })
      await services.close()
      const applied = services.migrationsApplied
      process.stdout.write(applied === 0 ? 'Schema is up to date.\n' : `Applied ${applied} migration(s).\n`)
      return
    }
    case 'keys':
      return keysCommand(config, rest)
    case 'customers':
      return customersCommand(config, rest)
    case 'operators':
      return operatorsCommand(config, rest)
    case 'plans':
      return plansCommand(config, rest)
    case 'usage':
      return usageCommand(config, rest)
    case 'backup':
      return backupCommand(config, rest)
    case 'healthcheck':
      return healthcheckCommand(config, rest)
    case 'check':
      return checkCommand(config, rest)
    case 'openapi':
      process.stdout.write(openApiText(config))
      return
    default:
      throw new UsageError(
        `unknown command ${JSON.stringify(command)}: expected serve, migrate, keys, customers, operators, plans, usage, backup, check, healthcheck or openapi (see animal-store help)`
      )
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  if (error instanceof UsageError || error instanceof ConfigError) {
    process.stderr.write(`animal-store: ${error.message}\n`)
    process.exit(error instanceof UsageError ? 2 : 1)
  }
  process.stderr.write(`animal-store: ${(error as Error).message ?? String(error)}\n`)
  process.exit(1)
})
