import type { ComponentChildren } from 'preact';
import { useRef } from 'preact/hooks';

/**
 * A button that asks first, in a native modal <dialog> (focus moves into it, Escape cancels,
 * focus returns to the button).
 */
export function ConfirmButton({
  label,
  title,
  children,
  confirmLabel,
  onConfirm,
  danger = false,
  disabled = false,
}: {
  label: string;
  title: string;
  children: ComponentChildren;
  confirmLabel: string;
  onConfirm: () => void;
  danger?: boolean;
  disabled?: boolean;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const titleId = useRef(`confirm-${Math.random().toString(36).slice(2)}`).current;
  const close = () => dialog.current?.close();
  return (
    <>
      <button type="button" class={danger ? 'danger' : undefined} disabled={disabled} onClick={() => dialog.current?.showModal()}>
        {label}
      </button>
      <dialog ref={dialog} aria-labelledby={titleId}>
        <h3 id={titleId}>{title}</h3>
        <div>{children}</div>
        <div class="actions">
          <button type="button" autoFocus onClick={close}>
            Cancel
          </button>
          <button
            type="button"
            class={danger ? 'danger' : 'primary'}
            onClick={() => {
              close();
              onConfirm();
            }}
          >
            {confirmLabel}
          </button>
        </div>
      </dialog>
    </>
  );
}
