/** A mistake in the command line: printed as one line, exit code 2, nothing written. */
export class UsageError extends Error {
  override name = 'UsageError'
}
