import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { UsageBucket } from '@animal-store/contract'
import { usageCsv } from '../src/components/usage/series.ts'
import { toCsv } from '../src/csv.ts'

test('writes RFC 4180: CRLF records, quotes only where needed, quotes inside doubled', () => {
  const csv = toCsv(
    ['Name', 'Count', 'Note'],
    [
      ['plain', 1, null],
      ['with, comma', 2, 'say "hi"'],
      ['two\nlines', 0, 'cr\rhere']
    ]
  )
  assert.equal(csv, 'Name,Count,Note\r\nplain,1,\r\n"with, comma",2,"say ""hi"""\r\n"two\nlines",0,"cr\rhere"\r\n')
})

test('keeps text that a spreadsheet would run as a formula as text', () => {
  assert.equal(toCsv(['a', 'b', 'c', 'd'], [['=1+1', '+x', '-y', '@z']]), "a,b,c,d\r\n'=1+1,'+x,'-y,'@z\r\n")
  // Numbers are numbers, negative ones too; markup is just text.
  assert.equal(toCsv(['n', 't'], [[-5, '<img src=x onerror=alert(1)>']]), 'n,t\r\n-5,<img src=x onerror=alert(1)>\r\n')
  assert.equal(toCsv(['q'], [['=a,"b"']]), 'q\r\n"\'=a,""b"""\r\n')
})

test("the usage chart's CSV has a column per outcome, Quota exceeded after Banned, as the API orders them", () => {
  const buckets: UsageBucket[] = [
    { start: '2026-11-27T10:00:00.000Z', allowed: 60, rateLimited: 5, banned: 2, quotaExceeded: 0 },
    { start: '2026-11-27T10:01:00.000Z', allowed: 0, rateLimited: 0, banned: 0, quotaExceeded: 17 }
  ]
  const { header, rows } = usageCsv(buckets, 'utc')
  assert.deepEqual(header, ['Start', 'Allowed', 'Rate limited', 'Banned', 'Quota exceeded'])
  assert.equal(
    toCsv(header, rows),
    'Start,Allowed,Rate limited,Banned,Quota exceeded\r\n2026-11-27T10:00:00Z,60,5,2,0\r\n2026-11-27T10:01:00Z,0,0,0,17\r\n'
  )
})
