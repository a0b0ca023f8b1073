import assert from 'node:assert/strict'
import { test } from 'node:test'
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
