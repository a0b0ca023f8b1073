import type { ComponentChildren } from 'preact'
import { useId, useLayoutEffect, useRef } from 'preact/hooks'

interface DialogProps {
  title: string
  /** Called when the dialog closes by itself (Escape); the owner then stops rendering it. */
  onClose: () => void
  children: ComponentChildren
}

/**
 * A modal dialog: the browser's `<dialog>` opened with showModal(), so the page behind is inert
 * (focus cannot leave it) and Escape closes it. Focus goes back to the control that opened it,
 * or to the screen's heading when that control is gone.
 */
export function Dialog({ title, onClose, children }: DialogProps) {
  const ref = useRef<HTMLDialogElement>(null)
  const titleId = useId()
  // Opened as the dialog is put in the page, before the browser paints or takes another key press.
  useLayoutEffect(() => {
    const dialog = ref.current
    if (dialog === null) return
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null
    dialog.showModal()
    return () => {
      if (dialog.open) dialog.close()
      const target = opener?.isConnected === true ? opener : document.querySelector<HTMLElement>('main h1')
      target?.focus()
    }
  }, [])
  return (
    <dialog ref={ref} class="dialog" aria-labelledby={titleId} onClose={onClose}>
      <h2 id={titleId}>{title}</h2>
      {children}
    </dialog>
  )
}
