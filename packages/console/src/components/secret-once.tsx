import { useEffect, useId, useRef, useState } from 'preact/hooks'

interface SecretOnceProps {
  secret: string
  onDone: () => void
}

/** A new secret, shown this once behind a clear warning, with Copy; Done closes it for good. */
export function SecretOnce({ secret, onDone }: SecretOnceProps) {
  const fieldId = useId()
  const field = useRef<HTMLInputElement>(null)
  const copyButton = useRef<HTMLButtonElement>(null)
  const [copied, setCopied] = useState('')
  useEffect(() => copyButton.current?.focus(), [])

  const copy = async () => {
    try {
      await navigator.clipboard.writeText(secret)
      setCopied('Copied to the clipboard.')
    } catch {
      field.current?.select()
      setCopied('The browser refused to copy: the secret is selected, copy it with Ctrl+C.')
    }
  }

  return (
    <div class="secret-once">
      <p class="warning">
        <strong>This secret is shown once.</strong> Copy it now and keep it somewhere safe: only its hash is stored, so it cannot be shown
        again.
      </p>
      <label for={fieldId}>Secret</label>
      <input
        id={fieldId}
        ref={field}
        class="secret"
        readOnly
        value={secret}
        spellcheck={false}
        autocomplete="off"
        onFocus={(event) => event.currentTarget.select()}
      />
      <div class="actions">
        <button type="button" ref={copyButton} onClick={() => void copy()}>
          Copy
        </button>
        <button type="button" class="primary" onClick={onDone}>
          Done
        </button>
      </div>
      <p role="status" class="status">
        {copied}
      </p>
    </div>
  )
}
