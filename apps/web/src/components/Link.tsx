import type { ComponentChildren } from 'preact';
import { hrefOf, onLinkClick, Route } from '../router';

export function Link({ to, children, class: className, 'aria-current': current }: { to: Route; children: ComponentChildren; class?: string; 'aria-current'?: 'page' }) {
  return (
    <a href={hrefOf(to)} onClick={onLinkClick(to)} class={className} aria-current={current}>
      {children}
    </a>
  );
}
