/**
 * A database whose schema a newer build migrated: this build does not know its tables, so it
 * must neither serve it nor migrate it (a downgrade would run on an unknown schema).
 */
export class SchemaTooNewError extends Error {
  override name = 'SchemaTooNewError'

  constructor(found: number, newest: number) {
    super(schemaTooNew(found, newest))
  }
}

function schemaTooNew(found: number, newest: number): string {
  return (
    `the database's schema is at version ${found}, newer than this build's newest (${newest}): ` +
    'this build can neither serve nor migrate it; run the animal-store release that migrated it, or a newer one'
  )
}

/** What `check` says of the version a database is at, against the newest migration this build has. */
export interface SchemaVerdict {
  /** Why the build cannot serve it, or undefined when it can. */
  problem: string | undefined
  /** What serving it will do first (an older schema is migrated at start), or undefined. */
  note: string | undefined
}

export function judgeSchemaVersion(found: number, newest: number): SchemaVerdict {
  if (found > newest) return { problem: schemaTooNew(found, newest), note: undefined }
  if (found < newest) {
    const pending = found + 1 === newest ? `migration ${newest}` : `migrations ${found + 1} to ${newest}`
    return {
      problem: undefined,
      note: `schema version ${found} is older than this build's ${newest}: serve (or migrate) applies ${pending} first, so it can be served after that`
    }
  }
  return { problem: undefined, note: undefined }
}
