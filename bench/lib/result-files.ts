import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

/** What every results file opens with: which run, its title, the command that started it and when. */
interface ResultsHead {
  kind: string
  title: string
  command: string
  startedAt: Date
}

/**
 * Writes a run's results as `<kind>.json` (the head, finishedAt, then `body`) and its report as
 * `<kind>.md` in `outDir`, so that every mode leaves the same pair of files; returns their paths.
 */
export function writeResultFiles(
  outDir: string,
  head: ResultsHead,
  body: Record<string, unknown>,
  markdown: string
): { jsonPath: string; mdPath: string } {
  mkdirSync(outDir, { recursive: true })
  const jsonPath = join(outDir, `${head.kind}.json`)
  const mdPath = join(outDir, `${head.kind}.md`)
  const { kind, title, command, startedAt } = head
  const results = { kind, title, command, startedAt: startedAt.toISOString(), finishedAt: new Date().toISOString(), ...body }
  writeFileSync(jsonPath, `${JSON.stringify(results, null, 2)}\n`)
  writeFileSync(mdPath, markdown)
  return { jsonPath, mdPath }
}
