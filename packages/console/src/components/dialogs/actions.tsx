interface DialogActionsProps {
  busy: boolean
  /** The submit button's words: "Create", "Save", "Delete"... */
  submit: string
  onCancel: () => void
  /** The submit button in the danger colour (a change that cannot be undone). */
  danger?: boolean
}

/** A dialog form's buttons: Cancel, then the one that submits, busy while the request runs. */
export function DialogActions({ busy, submit, onCancel, danger = false }: DialogActionsProps) {
  return (
    <div class="actions">
      <button type="button" onClick={onCancel}>
        Cancel
      </button>
      <button type="submit" class={danger ? 'primary danger' : 'primary'} aria-busy={busy}>
        {submit}
      </button>
    </div>
  )
}
