import type { RefObject } from 'preact';
import { useEffect } from 'preact/hooks';

/** A form just opened takes the focus on its first field (the button that opened it is gone). */
export function useFocusFirstField(form: RefObject<HTMLFormElement | null>): void {
  useEffect(() => form.current?.querySelector<HTMLElement>('input:not([type=hidden]), select, textarea')?.focus(), []);
}

/**
 * When the focused control went away with its panel (a form saved or cancelled, a secret put
 * away), the page's heading takes the focus, so that Tab goes on from the top of the content
 * rather than from the start of the document. Focus that something else took meanwhile stays.
 */
export function focusPageHeadingIfLost(): void {
  requestAnimationFrame(() => {
    const active = document.activeElement;
    if (active === null || active === document.body) document.querySelector<HTMLElement>('#main h1')?.focus();
  });
}
