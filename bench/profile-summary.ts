// Summarises V8 .cpuprofile files (from `npm run bench -- --profile`): where the server's
// CPU time went, by function (self and inclusive) and by package.
// Usage (the pinned Node 24): npx node bench/profile-summary.ts <file.cpuprofile> [more files] [--top N]
import { readFileSync } from 'node:fs'
import { basename } from 'node:path'
import { parseArgs } from 'node:util'

interface ProfileNode {
  id: number
  callFrame: { functionName: string; url: string; lineNumber: number }
  children?: number[]
}

interface Profile {
  nodes: ProfileNode[]
  samples: number[]
  startTime: number
  endTime: number
}

const { values, positionals } = parseArgs({ allowPositionals: true, options: { top: { type: 'string' } } })
const top = Number(values.top ?? 25)
if (positionals.length === 0) {
  process.stderr.write('Usage: node bench/profile-summary.ts <file.cpuprofile> [...] [--top N]\n')
  process.exit(2)
}

const ROOT = new URL('..', import.meta.url).href

function where(frame: ProfileNode['callFrame']): string {
  if (frame.url === '') return ''
  const url = frame.url.startsWith(ROOT) ? frame.url.slice(ROOT.length) : frame.url
  return `${url.replace(/^file:\/\//, '')}:${frame.lineNumber + 1}`
}

function packageOf(frame: ProfileNode['callFrame']): string {
  const url = frame.url
  if (url === '') return frame.functionName.startsWith('(') ? frame.functionName : '(native)'
  if (url.startsWith('node:')) return 'node internals'
  const inModules = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)
  if (inModules !== null) return inModules[1]!
  if (url.startsWith(ROOT)) return url.slice(ROOT.length).split('/').slice(0, 3).join('/')
  return url
}

const pct = (n: number, total: number) => `${((100 * n) / total).toFixed(1).padStart(5)}%`

for (const file of positionals) {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile
  const byId = new Map(profile.nodes.map((n) => [n.id, n]))
  const parent = new Map<number, number>()
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id)
  const self = new Map<string, number>()
  const inclusive = new Map<string, number>()
  const packages = new Map<string, number>()
  const label = (n: ProfileNode) => `${n.callFrame.functionName || '(anonymous)'} ${where(n.callFrame)}`.trim()
  let total = 0
  let idle = 0
  for (const sample of profile.samples) {
    const node = byId.get(sample)!
    total++
    if (node.callFrame.functionName === '(idle)') {
      idle++
      continue
    }
    self.set(label(node), (self.get(label(node)) ?? 0) + 1)
    packages.set(packageOf(node.callFrame), (packages.get(packageOf(node.callFrame)) ?? 0) + 1)
    const seen = new Set<string>()
    for (let id: number | undefined = sample, depth = 0; id !== undefined && depth < 500; id = parent.get(id), depth++) {
      const name = label(byId.get(id)!)
      if (seen.has(name)) continue
      seen.add(name)
      inclusive.set(name, (inclusive.get(name) ?? 0) + 1)
    }
  }
  const busy = total - idle
  const seconds = (profile.endTime - profile.startTime) / 1e6
  const rows = (map: Map<string, number>, exclude: (k: string) => boolean = () => false) =>
    [...map.entries()]
      .filter(([k]) => !exclude(k))
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([k, n]) => `  ${pct(n, busy)}  ${k}`)
      .join('\n')
  process.stdout.write(
    `\n=== ${basename(file)}: ${seconds.toFixed(1)} s profiled, ${total} samples, ${pct(idle, total).trim()} idle; ` +
      'percentages below are of the busy samples ===\n'
  )
  process.stdout.write(`\n-- by package (self time) --\n${rows(packages)}\n`)
  process.stdout.write(`\n-- top ${top} functions by self time --\n${rows(self)}\n`)
  process.stdout.write(
    `\n-- top ${top} functions by inclusive time --\n${rows(inclusive, (k) => k.startsWith('(root)') || k.startsWith('(program)'))}\n`
  )
}
