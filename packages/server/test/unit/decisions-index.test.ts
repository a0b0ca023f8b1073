import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { test } from 'node:test'

const DECISIONS = new URL('../../../../docs/decisions.md', import.meta.url)

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
const anchorOf = (heading: string) =>
  heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\- _]/gu, '')
    .replace(/ /g, '-')

test('docs/decisions.md opens with an index that links every group and decision, in the order they appear', () => {
  const text = readFileSync(DECISIONS, 'utf8')
  const start = text.indexOf('\n## Index\n')
  assert.ok(start > 0, 'an Index section near the top')
  const end = text.indexOf('\n## ', start + 1)
  const index = text.slice(start, end)
  const body = text.slice(end)
  const linked = [...index.matchAll(/\]\(#([^)]+)\)/g)].map((m) => m[1])
  const headings = [...body.matchAll(/^(##|###) (.+)$/gm)].map((m) => anchorOf(m[2]!))
  assert.ok(headings.length > 50, `the decisions are there (${headings.length} headings)`)
  assert.equal(new Set(headings).size, headings.length, 'every heading has an anchor of its own')
  assert.deepEqual(linked, headings, 'one index line per group and decision, in the order of the sections')
})
