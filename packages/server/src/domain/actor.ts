/**
 * Who makes a change: an operator of the operator API, or the OS user running the CLI. The
 * `actor` of an audit event (design.md §6).
 */
export interface Actor {
  type: 'operator' | 'cli'
  id: string
  name: string
}
