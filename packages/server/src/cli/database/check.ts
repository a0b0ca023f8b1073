import { checkDatabase } from '../../compose/maintenance.ts'
import { describeDatabase, type Config } from '../../config.ts'
import { parseCommand } from '../parse-command.ts'

export const CHECK_HELP = `Usage: animal-store check [--json]

Checks the database DATABASE_URL names, without changing it: on SQLite the file itself (read-only,
never created: a missing file is a problem) with PRAGMA integrity_check and its migrations table;
on PostgreSQL a connection and the schema. Then whether this build can serve the schema version:
a newer one cannot be served; an older one can, once serve (or migrate) has applied the rest.
Exits 0 when sound, 1 with the reasons otherwise. --json prints one object: ok, schemaVersion,
buildSchemaVersion, problems (strings), notes, pets, keys.
`

export async function checkCommand(config: Config, argv: string[]): Promise<void> {
  const { json } = parseCommand('check', argv, [])
  const report = await checkDatabase(config)
  const ok = report.problems.length === 0
  if (!ok) process.exitCode = 1
  if (json) {
    process.stdout.write(`${JSON.stringify({ ok, ...report })}\n`)
    return
  }
  const lines = [`database: ${describeDatabase(config.database)}`]
  if (report.schemaVersion !== null)
    lines.push(`schema version: ${report.schemaVersion} (this build's newest: ${report.buildSchemaVersion})`)
  if (report.pets !== null) lines.push(`pets: ${report.pets}, keys: ${report.keys}`)
  lines.push(...report.notes.map((note) => `note: ${note}`))
  lines.push(ok ? 'sound' : `not sound: ${report.problems.length} problem(s)`)
  process.stdout.write(`${lines.join('\n')}\n`)
  for (const problem of report.problems) process.stderr.write(`animal-store check: ${problem}\n`)
}
