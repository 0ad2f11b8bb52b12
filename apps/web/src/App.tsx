import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { ApiContext } from './api/api-context';
import { ApiClient } from './api/client';
import { AutomationsPage } from './automations/AutomationsPage';
import { WorkflowPage } from './automations/WorkflowPage';
import { Link } from './components/Link';
import { forgetApiKey, storedApiKey, storeApiKey } from './session';
import { EventsPage } from './events/EventsPage';
import { SendStatusPage } from './send-status/SendStatusPage';
import { SignIn } from './SignIn';
import { Route, useRoute } from './router';
import { WebhookPage } from './webhooks/WebhookPage';
import { WebhooksPage } from './webhooks/WebhooksPage';

export function App() {
  const [apiKey, setApiKey] = useState<string | null>(() => storedApiKey());
  const [signOutReason, setSignOutReason] = useState<string | undefined>(undefined);

  const signOut = (reason?: string) => {
    forgetApiKey();
    setApiKey(null);
    setSignOutReason(reason);
  };

  const client = useMemo(
    () =>
      apiKey === null
        ? null
        : new ApiClient(apiKey, {
            onUnauthorized: (error) => signOut(`The API key was refused (${error.message}). Sign in again.`),
          }),
    [apiKey],
  );

  if (!client) {
    return (
      <SignIn
        reason={signOutReason}
        onSignedIn={(key) => {
          storeApiKey(key);
          setSignOutReason(undefined);
          setApiKey(key);
        }}
      />
    );
  }
  return (
    <ApiContext.Provider value={client}>
      <Dashboard onSignOut={() => signOut('You are signed out.')} />
    </ApiContext.Provider>
  );
}

const SECTIONS: Array<{ label: string; route: Route; matches: Array<Route['name']> }> = [
  { label: 'Webhooks', route: { name: 'webhooks' }, matches: ['webhooks', 'webhook'] },
  { label: 'Events', route: { name: 'events' }, matches: ['events'] },
  { label: 'Automations', route: { name: 'automations' }, matches: ['automations', 'workflow'] },
  { label: 'Send status', route: { name: 'send-status' }, matches: ['send-status'] },
];

function Dashboard({ onSignOut }: { onSignOut: () => void }) {
  const route = useRoute();
  const main = useRef<HTMLElement>(null);
  const first = useRef(true);

  // After a navigation, move focus to the new screen's heading (screen readers announce it).
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    main.current?.querySelector<HTMLElement>('h1')?.focus();
  }, [route]);

  return (
    <>
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <header class="top">
        <span class="brand">Webhook server</span>
        <nav aria-label="Sections">
          <ul>
            {SECTIONS.map((section) => (
              <li key={section.label}>
                <Link to={section.route} class={section.matches.includes(route.name) ? 'current' : undefined} aria-current={section.matches.includes(route.name) ? 'page' : undefined}>
                  {section.label}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <button type="button" class="sign-out" onClick={onSignOut}>
          Sign out
        </button>
      </header>
      <main id="main" ref={main} tabIndex={-1}>
        <Screen route={route} />
      </main>
    </>
  );
}

function Screen({ route }: { route: Route }) {
  switch (route.name) {
    case 'webhooks':
      return <WebhooksPage />;
    case 'webhook':
      return <WebhookPage key={route.id} id={route.id} eventId={route.eventId} />;
    case 'events':
      return <EventsPage eventId={route.eventId} />;
    case 'automations':
      return <AutomationsPage />;
    case 'workflow':
      return <WorkflowPage key={route.id} id={route.id} />;
    case 'send-status':
      return <SendStatusPage />;
  }
}
