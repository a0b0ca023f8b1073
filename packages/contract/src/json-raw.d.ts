// JSON.rawJSON and the reviver's source text (ES2025 "JSON.parse source text access")
// ship in Node 24 but not yet in TypeScript's lib.
declare global {
  interface JSON {
    rawJSON(text: string): unknown
    isRawJSON(value: unknown): boolean
  }
}
export {}
