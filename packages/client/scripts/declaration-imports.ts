// tsc rewrites the sources' `./x.ts` specifiers to `./x.js` in the JavaScript it emits but leaves
// them as they are in the .d.ts files (microsoft/TypeScript#61037). TypeScript 5 reads those, but
// older TypeScript and some editors look for a .ts file the package does not ship: point them at
// the .js beside each .d.ts, as the JavaScript does. Run by `npm run build` after tsc.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs'

const dist = new URL('../dist/', import.meta.url)
const RELATIVE_TS = /(\bfrom\s*|\bimport\s*\(\s*)(["'])(\.{1,2}\/[^"']+)\.ts\2/g

for (const name of readdirSync(dist).filter((file) => file.endsWith('.d.ts'))) {
  const file = new URL(name, dist)
  const text = readFileSync(file, 'utf8')
  const rewritten = text.replace(RELATIVE_TS, '$1$2$3.js$2')
  if (rewritten !== text) writeFileSync(file, rewritten)
}
