import { useEffect, useRef } from 'preact/hooks';
import { CopyButton } from './CopyButton';
import { focusPageHeadingIfLost } from './focus';

/**
 * A secret the API shows once (a signing secret, a signing key, a trigger URL): the value, a
 * copy button and a plain warning. The value lives in this component's props only; once the user
 * closes the panel it is gone from the page.
 */
export function SecretReveal({ title, label, value, onDone }: { title: string; label: string; value: string; onDone: () => void }) {
  const input = useRef<HTMLInputElement>(null);
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  const id = `secret-${label.replace(/\W+/g, '-').toLowerCase()}`;
  return (
    <section class="secret" aria-labelledby={`${id}-title`}>
      <h3 id={`${id}-title`} tabIndex={-1} ref={heading}>
        {title}
      </h3>
      <p class="secret-warning">
        <strong>Copy it now: you will not see this again.</strong> The server keeps no readable copy to show you later.
      </p>
      <label for={id}>{label}</label>
      <div class="secret-row">
        <input id={id} ref={input} class="mono" readOnly value={value} spellcheck={false} autoComplete="off" onFocus={(e) => e.currentTarget.select()} />
        <CopyButton value={value} fallbackInput={() => input.current} />
      </div>
      <button
        type="button"
        class="primary"
        onClick={() => {
          onDone();
          focusPageHeadingIfLost();
        }}
      >
        I have saved it
      </button>
    </section>
  );
}
