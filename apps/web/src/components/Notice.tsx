import type { ComponentChildren } from 'preact';

/** A polite live region: screen readers announce what an action did. */
export function Notice({ children }: { children?: ComponentChildren }) {
  return (
    <p class="notice" role="status" aria-live="polite">
      {children}
    </p>
  );
}
