/** What `animal-store check` found in a database (or `backup` in its copy). */
export interface DatabaseReport {
  /** The newest migration applied, or null when it could not be read. */
  schemaVersion: number | null
  /** The newest migration this build has. */
  buildSchemaVersion: number
  /** Why the database cannot be served as it is; empty when it is sound. */
  problems: string[]
  /** What is worth knowing but needs nothing done (an older schema that serve migrates first). */
  notes: string[]
  /** Rows in `pets` and `api_keys`, when they could be counted. */
  pets: number | null
  keys: number | null
}
