import { useState } from 'preact/hooks'
import { messageOf } from '../api/transport.ts'

export interface Action {
  busy: boolean
  error: string | null
  /** Runs `work` once at a time; resolves to its result, or undefined when it failed (its message is then in `error`). */
  run: <T>(work: () => Promise<T>) => Promise<T | undefined>
  fail: (message: string) => void
}

/** A change the operator asked for (create, save, rotate...): busy while it runs, its error kept to show. */
export function useAction(): Action {
  const [state, setState] = useState<{ busy: boolean; error: string | null }>({ busy: false, error: null })
  const run = async <T>(work: () => Promise<T>): Promise<T | undefined> => {
    if (state.busy) return undefined
    setState({ busy: true, error: null })
    try {
      const result = await work()
      setState({ busy: false, error: null })
      return result
    } catch (error) {
      setState({ busy: false, error: messageOf(error) })
      return undefined
    }
  }
  return { ...state, run, fail: (message) => setState({ busy: false, error: message }) }
}
