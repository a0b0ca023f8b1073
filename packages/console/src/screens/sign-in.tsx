import type { Operator } from '@animal-store/contract'
import { useEffect, useId, useRef, useState } from 'preact/hooks'
import { operatorApi } from '../api/operations.ts'
import { ApiError, createSend, messageOf } from '../api/transport.ts'
import { ErrorAlert } from '../components/notices.tsx'

interface SignInProps {
  /** Why the operator is here again (a token refused mid-session), if that is why. */
  notice: string | null
  onSignedIn: (token: string, operator: Operator) => void
}

/** "Operator token" and "Sign in": the token is checked with GET /admin/v1/me before it is kept. */
export function SignIn({ notice, onSignedIn }: SignInProps) {
  const fieldId = useId()
  const field = useRef<HTMLInputElement>(null)
  const [token, setToken] = useState('')
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<string | null>(notice)
  useEffect(() => field.current?.focus(), [])

  const submit = async (event: Event) => {
    event.preventDefault()
    const candidate = token.trim()
    if (candidate === '') return setError('Enter an operator token (as_admin_…).')
    setBusy(true)
    setError(null)
    try {
      // A refused token here is a sign-in error, not a session that ended: nothing to sign out of.
      const operator = await operatorApi(createSend(candidate, () => undefined)).currentOperator()
      onSignedIn(candidate, operator)
    } catch (failure) {
      setBusy(false)
      setError(
        failure instanceof ApiError && failure.status === 401
          ? `This token was not accepted: ${failure.message}.`
          : `Could not sign in: ${messageOf(failure)}`
      )
      field.current?.focus()
    }
  }

  return (
    <main class="sign-in">
      <h1>Animal Store console</h1>
      <form onSubmit={(event) => void submit(event)}>
        <label for={fieldId}>Operator token</label>
        <input
          id={fieldId}
          ref={field}
          type="password"
          autocomplete="off"
          spellcheck={false}
          value={token}
          onInput={(event) => setToken(event.currentTarget.value)}
          aria-describedby={`${fieldId}-hint`}
        />
        <p class="hint" id={`${fieldId}-hint`}>
          Create one on the server with <code>npx animal-store operators create --role admin --name you</code>. It is kept in this tab only,
          until you sign out or close it.
        </p>
        <ErrorAlert message={error} />
        <button type="submit" class="primary" aria-busy={busy}>
          Sign in
        </button>
      </form>
    </main>
  )
}
