import type { ComponentChildren } from 'preact'

/** An error from the API, with its message, announced when it appears. */
export function ErrorAlert({ message }: { message: string | null }) {
  return message === null ? null : (
    <p role="alert" class="error">
      {message}
    </p>
  )
}

/** Words that say what is happening (loading, empty), announced politely. */
export function Status({ children }: { children: ComponentChildren }) {
  return (
    <p role="status" class="status">
      {children}
    </p>
  )
}
