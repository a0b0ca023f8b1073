// Node 20 and older browsers have neither the reviver's source text nor JSON.rawJSON, so the
// client carries its own exact int64 reading and writing instead of the contract's.

// Sixteen digits in a row is the shortest literal that can exceed 2^53; below that the
// platform's JSON.parse is exact and we keep it.
const MAYBE_UNSAFE_NUMBER = /[0-9]{16}/
const NUMBER = /-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/y
const WHITE_SPACE = /[ \t\n\r]*/y

/**
 * JSON.parse that never rounds an integer: integer literals beyond 2^53 come back as
 * `bigint`, every other value exactly as JSON.parse gives it.
 */
export function parseJson(text: string): unknown {
  if (!MAYBE_UNSAFE_NUMBER.test(text)) return JSON.parse(text)
  const parser = new LosslessParser(text)
  const value = parser.value()
  parser.end()
  return value
}

class LosslessParser {
  readonly #text: string
  #at = 0

  constructor(text: string) {
    this.#text = text
  }

  value(): unknown {
    this.#space()
    const char = this.#text[this.#at]
    if (char === '{') return this.#object()
    if (char === '[') return this.#array()
    if (char === '"') return this.#string()
    for (const [word, value] of [
      ['true', true],
      ['false', false],
      ['null', null]
    ] as const) {
      if (this.#text.startsWith(word, this.#at)) {
        this.#at += word.length
        return value
      }
    }
    return this.#number()
  }

  end(): void {
    this.#space()
    if (this.#at !== this.#text.length) this.#fail('unexpected text after the JSON value')
  }

  #object(): Record<string, unknown> {
    const object: Record<string, unknown> = {}
    this.#at++
    this.#space()
    if (this.#eat('}')) return object
    do {
      this.#space()
      if (this.#text[this.#at] !== '"') this.#fail('expected a property name')
      const key = this.#string()
      this.#space()
      if (!this.#eat(':')) this.#fail('expected ":"')
      // defineProperty keeps "__proto__" an own property, as JSON.parse does.
      Object.defineProperty(object, key, { value: this.value(), enumerable: true, writable: true, configurable: true })
      this.#space()
    } while (this.#eat(','))
    if (!this.#eat('}')) this.#fail('expected "," or "}"')
    return object
  }

  #array(): unknown[] {
    const array: unknown[] = []
    this.#at++
    this.#space()
    if (this.#eat(']')) return array
    do {
      array.push(this.value())
      this.#space()
    } while (this.#eat(','))
    if (!this.#eat(']')) this.#fail('expected "," or "]"')
    return array
  }

  #string(): string {
    const start = this.#at
    let at = start + 1
    for (;;) {
      const code = this.#text.charCodeAt(at)
      if (Number.isNaN(code)) this.#fail('unterminated string')
      if (code === 0x22) break
      at += code === 0x5c ? 2 : 1
    }
    this.#at = at + 1
    // The platform decodes escapes and rejects control characters exactly as JSON.parse does.
    return JSON.parse(this.#text.slice(start, this.#at)) as string
  }

  #number(): number | bigint {
    NUMBER.lastIndex = this.#at
    const match = NUMBER.exec(this.#text)
    if (match === null) this.#fail('unexpected character')
    this.#at = NUMBER.lastIndex
    const value = Number(match[0])
    if (match[1] === undefined && match[2] === undefined && !Number.isSafeInteger(value)) return BigInt(match[0])
    return value
  }

  #space(): void {
    WHITE_SPACE.lastIndex = this.#at
    WHITE_SPACE.exec(this.#text)
    this.#at = WHITE_SPACE.lastIndex
  }

  #eat(char: string): boolean {
    if (this.#text[this.#at] !== char) return false
    this.#at++
    return true
  }

  #fail(reason: string): never {
    throw new SyntaxError(`${reason} in JSON at position ${this.#at}`)
  }
}

/** JSON.stringify that writes a `bigint` as its exact digits. */
export function stringifyJson(value: unknown): string {
  const text = serialize(value)
  if (text === undefined) throw new TypeError('the value has no JSON form')
  return text
}

function serialize(value: unknown): string | undefined {
  if (typeof value === 'bigint') return value.toString()
  if (value === null || typeof value !== 'object') return JSON.stringify(value)
  const withJson = value as { toJSON?: () => unknown }
  if (typeof withJson.toJSON === 'function') return serialize(withJson.toJSON())
  if (Array.isArray(value)) return `[${value.map((item) => serialize(item) ?? 'null').join(',')}]`
  const members: string[] = []
  for (const [key, member] of Object.entries(value)) {
    const text = serialize(member)
    if (text !== undefined) members.push(`${JSON.stringify(key)}:${text}`)
  }
  return `{${members.join(',')}}`
}
