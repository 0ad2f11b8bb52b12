import type { ComponentChildren } from 'preact';

/** A labelled form control with an optional hint tied to it by aria-describedby. */
export function Field({ id, label, hint, children }: { id: string; label: string; hint?: ComponentChildren; children: ComponentChildren }) {
  return (
    <div class="field">
      <label for={id}>{label}</label>
      {children}
      {hint ? (
        <p class="hint" id={`${id}-hint`}>
          {hint}
        </p>
      ) : null}
    </div>
  );
}
