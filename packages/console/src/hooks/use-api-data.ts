import { useEffect, useState } from 'preact/hooks'
import { isAbort, messageOf } from '../api/transport.ts'
import { useView } from '../session.ts'

export interface ApiData<T> {
  /** The last answer; kept while a newer request runs, so a refresh does not blank the screen. */
  data: T | undefined
  error: string | null
  loading: boolean
}

/**
 * Loads `load` now, again whenever `deps` change, and on every Refresh. A newer load abandons
 * the older one, so an answer never lands after a later one.
 */
export function useApiData<T>(load: (signal: AbortSignal) => Promise<T>, deps: readonly unknown[]): ApiData<T> {
  const { tick } = useView()
  const [state, setState] = useState<ApiData<T>>({ data: undefined, error: null, loading: true })
  useEffect(() => {
    const controller = new AbortController()
    setState((previous) => ({ ...previous, loading: true }))
    load(controller.signal).then(
      (data) => {
        if (!controller.signal.aborted) setState({ data, error: null, loading: false })
      },
      (error: unknown) => {
        if (!controller.signal.aborted && !isAbort(error))
          setState((previous) => ({ ...previous, error: messageOf(error), loading: false }))
      }
    )
    return () => controller.abort()
    // `load` is a new closure on every render: what it reads is in `deps`.
  }, [...deps, tick])
  return state
}
