// Lints the generated OpenAPI documents (the public API's and the operator API's), offline, with the tools API users point at it:
// Redocly (recommended rules), Spectral `spectral:oas` and the OWASP API security ruleset.
// Any error or warning fails. Rules turned off are in redocly.yaml and .spectral.yaml, each with its reason.
import { spawnSync } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'
import { buildAdminOpenApi } from '../src/admin/openapi.ts'
import { buildOpenApi } from '../src/openapi.ts'
import { stringifyJson } from '../src/json.ts'

const root = new URL('../../../', import.meta.url)
mkdirSync(new URL('test-output/', root), { recursive: true })
// Production deployments' documents: https servers, as operations.md requires.
const documents = {
  'openapi-lint.json': buildOpenApi({
    publicBaseUrl: 'https://api.animal-store.example/v1',
    stagingBaseUrl: 'https://staging.animal-store.example/v1'
  }),
  'admin-openapi-lint.json': buildAdminOpenApi({ adminBaseUrl: 'https://ops.animal-store.internal/admin/v1' })
}

const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', SCARF_ANALYTICS: 'false' }
const run = (command: string, args: string[]) =>
  spawnSync(command, args, { cwd: root, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })

let failed = false
for (const [file, doc] of Object.entries(documents)) {
  const target = new URL(`test-output/${file}`, root)
  writeFileSync(target, `${stringifyJson(doc, 2)}\n`)
  const redocly = run('redocly', ['lint', '--config', 'redocly.yaml', '--format', 'json', target.pathname])
  const totals = (JSON.parse(redocly.stdout) as { totals: { errors: number; warnings: number } }).totals
  console.log(`${file}: redocly (recommended): ${totals.errors} errors, ${totals.warnings} warnings`)
  if (totals.errors + totals.warnings > 0) {
    failed = true
    console.log(run('redocly', ['lint', '--config', 'redocly.yaml', target.pathname]).stdout)
  }
  const spectral = run('spectral', ['lint', '--ruleset', '.spectral.yaml', '--fail-severity', 'hint', target.pathname])
  console.log(`${file}: spectral (spectral:oas + OWASP): ${spectral.status === 0 ? 'no findings' : 'findings'}`)
  if (spectral.status !== 0) {
    failed = true
    console.log(spectral.stdout, spectral.stderr)
  }
}
process.exitCode = failed ? 1 : 0
