// Bundles the CLI (src/main.ts and everything it imports, dependencies included) into dist/.
// Loading ~1,000 small ES modules (TypeBox alone is ~700) took most of a start: resolving,
// reading and linking each file costs more than compiling it. One bundle starts in less than
// half the time (README "Performance": start-up). bin/animal-store.js runs it while it is
// newer than every file it was built from, and the sources otherwise.
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'
import { BUNDLE_ENTRY, BUNDLE_MANIFEST, type BundleManifest } from '../src/cli/entry.ts'

const PACKAGE_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '..')

/** Builds the bundle into `outDir` (default dist/), replacing what was there. */
export async function buildBundle(outDir = resolve(PACKAGE_DIR, 'dist')): Promise<BundleManifest> {
  // Inputs changed after this moment are newer than the bundle, whatever its files' times.
  const startedAt = Date.now()
  // Written beside and renamed into place: a start meanwhile finds the old bundle or none.
  const staging = `${outDir}.tmp-${process.pid}`
  rmSync(staging, { recursive: true, force: true })
  mkdirSync(staging, { recursive: true })
  try {
    const result = await build({
      absWorkingDir: PACKAGE_DIR,
      entryPoints: { [BUNDLE_ENTRY.replace(/\.mjs$/, '')]: 'src/main.ts' },
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node24',
      // PostgreSQL and Redis are imported only when configured: separate chunks, loaded then.
      splitting: true,
      // OpenTelemetry is loaded from node_modules, and only with tracing on: bundled, its API
      // module made every process.nextTick of the server ~4× slower with no span ever started
      // (docs/performance.md, "Tracing"); loaded as its own ES modules it does not.
      external: ['@opentelemetry/*'],
      outdir: staging,
      outExtension: { '.js': '.mjs' },
      // Readable stack traces as they are, exact ones with NODE_OPTIONS=--enable-source-maps.
      sourcemap: 'linked',
      metafile: true,
      logLevel: 'warning',
      // CommonJS dependencies that require() Node's own modules need a require in an ES module.
      banner: {
        js:
          "import { createRequire as __animalStoreCreateRequire } from 'node:module'; " +
          'const require = __animalStoreCreateRequire(import.meta.url);'
      }
    })
    const workspaceInputs = Object.keys(result.metafile.inputs)
      .filter((input) => !input.includes('node_modules/'))
      .map((input) => resolve(PACKAGE_DIR, input))
    // npm rewrites this file whenever an install changes node_modules: one stat stands for
    // every dependency bundled.
    const installed = resolve(PACKAGE_DIR, '../../node_modules/.package-lock.json')
    const manifest: BundleManifest = {
      builtAt: startedAt,
      inputs: [...workspaceInputs, installed].map((path) => relative(outDir, path))
    }
    writeFileSync(resolve(staging, BUNDLE_MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`)
    rmSync(outDir, { recursive: true, force: true })
    renameSync(staging, outDir)
    return manifest
  } finally {
    rmSync(staging, { recursive: true, force: true })
  }
}

if (import.meta.main) {
  const manifest = await buildBundle()
  console.log(`animal-store: bundled ${manifest.inputs.length - 1} source files into packages/server/dist/`)
}
