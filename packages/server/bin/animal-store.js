#!/usr/bin/env -S node --max-semi-space-size=8
// The CLI runs the bundle in dist/ (`npm run build`; `npm start` builds it) while it is newer
// than every file it was built from, else its TypeScript sources directly (Node 24 strips
// types); both behave the same, the bundle starts faster. `npx animal-store` and the npm
// scripts put the pinned Node 24 from node_modules/.bin first on PATH.
// --max-semi-space-size=8 (MB): under load V8 otherwise grows its young generation to 64 MB,
// which took the serving process from ~165 to ~250 MB of RSS for no measurable speed
// (README "Performance"). Flags must be given at start, hence the shebang.
const [major] = process.versions.node.split('.').map(Number)
if (major < 24) {
  process.stderr.write(
    `animal-store: needs Node.js >= 24 (this is ${process.version}); ` +
      'run it as `npx animal-store` or through an npm script, which use the pinned Node 24\n'
  )
  process.exit(1)
}
// The module compile cache keeps V8's code cache (and for sources the type-stripped code) on
// disk, so every start after the first skips compiling (README "Performance": start-up). It
// lives in os.tmpdir()/node-compile-cache unless NODE_COMPILE_CACHE names a folder;
// NODE_DISABLE_COMPILE_CACHE=1 turns it off. It never fails a start.
const { enableCompileCache } = await import('node:module')
enableCompileCache()
const { fileURLToPath, pathToFileURL } = await import('node:url')
const { freshBundle } = await import('../src/cli/entry.ts')
const bundle = freshBundle(fileURLToPath(new URL('../dist/', import.meta.url)))
await import(bundle === undefined ? '../src/main.ts' : pathToFileURL(bundle).href)
