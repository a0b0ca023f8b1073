// Which code the CLI runs: the bundle scripts/build.ts made, or the TypeScript sources. Both
// behave the same; the bundle starts faster. Imported by bin/animal-store.js before anything
// else, so it imports nothing heavy.
import { readFileSync, statSync } from 'node:fs'
import { resolve } from 'node:path'

/** The bundle's entry file in dist/. */
export const BUNDLE_ENTRY = 'animal-store.mjs'
/** What the bundle was built from, in dist/. */
export const BUNDLE_MANIFEST = 'build.json'

export interface BundleManifest {
  /** When the build started (Unix ms): an input changed after it is newer than the bundle. */
  builtAt: number
  /** Paths relative to dist/: the workspace source files bundled, and npm's record of node_modules. */
  inputs: string[]
}

/**
 * The bundle's entry file when dist/ holds a bundle built from the files as they are now (none
 * changed, moved or removed since), else undefined: the sources are to be run.
 */
export function freshBundle(distDir: string): string | undefined {
  try {
    const manifest = JSON.parse(readFileSync(resolve(distDir, BUNDLE_MANIFEST), 'utf8')) as BundleManifest
    if (!Number.isFinite(manifest.builtAt) || !Array.isArray(manifest.inputs) || manifest.inputs.length === 0) return undefined
    for (const input of manifest.inputs) {
      if (statSync(resolve(distDir, input)).mtimeMs > manifest.builtAt) return undefined
    }
    const entry = resolve(distDir, BUNDLE_ENTRY)
    statSync(entry)
    return entry
  } catch {
    // No bundle, an unreadable manifest, or an input gone: run the sources.
    return undefined
  }
}
