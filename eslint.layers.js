// The server's layers, lowest first (docs/architecture.md): a file may import from its own layer
// and the layers below it, never from one above. Concrete backends (the SQLite and PostgreSQL
// stores, the counter stores, the tracing engine) are chosen by the composition root alone: outside
// their own folder, only compose.ts and compose/ may import them; everyone else sees their interfaces.
const SRC = 'packages/server/src'

const LAYERS = [
  { name: 'base', files: ['base/**', 'config.ts'], imports: ['(^|/)base/', '(^|/)config\\.ts$'] },
  { name: 'storage', files: ['storage/**'], imports: ['(^|/)storage/'] },
  { name: 'domain', files: ['domain/**'], imports: ['(^|/)domain/'] },
  { name: 'limits', files: ['limits/**'], imports: ['(^|/)limits/'] },
  // The services the composition root builds for the hooks and routes, then the hooks every request passes.
  { name: 'http/services', files: ['http/services/**'], imports: ['(^|/)http/services/', '^\\.\\./services/'] },
  { name: 'http/hooks', files: ['http/hooks/**'], imports: ['(^|/)http/hooks/', '^\\.\\./hooks/'] },
  { name: 'routes', files: ['routes/**'], imports: ['(^|/)routes/'] },
  { name: 'services', files: ['services.ts'], imports: ['(^|/)services\\.ts$'] },
  // The public listener and the operator listener, built side by side from the same services.
  { name: 'app', files: ['app.ts', 'admin-app.ts'], imports: ['(^|/)app\\.ts$', '(^|/)admin-app\\.ts$'] },
  // The tracing engine behind base/tracing.ts: sampler, span records, OTLP encoders, exporter, traced stores.
  { name: 'tracing', files: ['tracing/**'], imports: ['(^|/)tracing/'] },
  { name: 'compose', files: ['compose.ts', 'compose/**'], imports: ['(^|/)compose(\\.ts$|/)'] },
  { name: 'cli', files: ['cli/**', 'main.ts'], imports: ['(^|/)cli/', '(^|/)main\\.ts$'] }
]

const CONCRETE_STORAGE = '(^|/)storage/(sqlite|postgres|redis)/'
const CONCRETE_COUNTERS = '(^|/)limits/((memory|redis)/|(fallback|persisted)\\.ts$)'
const CONCRETE_TRACING = '(^|/)tracing/'

function rule(layer, above) {
  const patterns = above.flatMap((upper) =>
    upper.imports.map((regex) => ({
      regex,
      message: `${layer.name} may not import from ${upper.name}, a layer above it (docs/architecture.md)`
    }))
  )
  const concrete = (regex, what) => ({ regex, message: `only the composition root picks ${what}: import its interface instead` })
  if (layer.name !== 'compose') {
    if (layer.name !== 'storage') patterns.push(concrete(CONCRETE_STORAGE, 'a storage backend'))
    if (layer.name !== 'limits') patterns.push(concrete(CONCRETE_COUNTERS, 'a counter store'))
    if (layer.name !== 'tracing') patterns.push(concrete(CONCRETE_TRACING, 'the tracing engine'))
  }
  // OpenTelemetry stays behind base/tracing.ts's Tracing: only the tracing engine (tracing/) uses it.
  if (layer.name !== 'tracing')
    patterns.push({ regex: '^@opentelemetry/', message: 'only tracing/ uses OpenTelemetry: import base/tracing.ts instead' })
  return {
    files: layer.files.map((glob) => `${SRC}/${glob}`),
    rules: { 'no-restricted-imports': ['error', { patterns }] }
  }
}

export const layerRules = LAYERS.map((layer, i) => rule(layer, LAYERS.slice(i + 1)))
