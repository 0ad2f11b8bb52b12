import { useState } from 'preact/hooks';

/** Copies `value` to the clipboard and says so; falls back to selecting the text in `fallbackInput`. */
export function CopyButton({ value, label = 'Copy', fallbackInput }: { value: string; label?: string; fallbackInput?: () => HTMLInputElement | null }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  const copy = async () => {
    try {
      if (!navigator.clipboard) throw new Error('no clipboard');
      await navigator.clipboard.writeText(value);
      setState('copied');
    } catch {
      // Pages served over plain http (not localhost) have no clipboard API: select the text instead.
      const input = fallbackInput?.();
      input?.focus();
      input?.select();
      setState(document.execCommand?.('copy') ? 'copied' : 'failed');
    }
  };
  return (
    <>
      <button type="button" onClick={copy}>
        {label}
      </button>
      <span class="copy-state" role="status" aria-live="polite">
        {state === 'copied' ? 'Copied to the clipboard.' : state === 'failed' ? 'Copy failed: the text is selected, press Ctrl+C.' : ''}
      </span>
    </>
  );
}
