import type { ComponentChildren } from 'preact'
import { useId, useLayoutEffect, useRef } from 'preact/hooks'

interface DialogProps {
  title: string
  /** Called when the dialog closes by itself (Escape); the owner then stops rendering it. */
  onClose: () => void
  /**
   * Where the keyboard goes once the dialog is gone, read as it closes: back to the control that
   * opened it (the default), or to the screen's heading when that control is about to go too (a
   * row just deleted).
   */
  returnFocus?: { readonly current: 'opener' | 'heading' }
  children: ComponentChildren
}

/**
 * A modal dialog: the browser's `<dialog>` opened with showModal(), so the page behind is inert
 * (focus cannot leave it) and Escape closes it. Focus goes back to the control that opened it,
 * or to the screen's heading when that control is gone (or said to be going: `returnFocus`).
 */
export function Dialog({ title, onClose, returnFocus, children }: DialogProps) {
  const ref = useRef<HTMLDialogElement>(null)
  const titleId = useId()
  // The owner hears of the close once, at Escape's `cancel`: the `close` event comes a task later,
  // after a key pressed meanwhile, and one from a dialog already gone must not close its successor.
  const gone = useRef(false)
  const closed = () => {
    if (gone.current) return
    gone.current = true
    onClose()
  }
  // Opened as the dialog is put in the page, before the browser paints or takes another key press.
  useLayoutEffect(() => {
    const dialog = ref.current
    if (dialog === null) return
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null
    dialog.showModal()
    return () => {
      gone.current = true
      if (dialog.open) dialog.close()
      const toOpener = returnFocus?.current !== 'heading' && opener?.isConnected === true
      const target = toOpener ? opener : document.querySelector<HTMLElement>('main h1')
      target?.focus()
    }
  }, [])
  return (
    <dialog ref={ref} class="dialog" aria-labelledby={titleId} onCancel={closed} onClose={closed}>
      <h2 id={titleId}>{title}</h2>
      {children}
    </dialog>
  )
}
