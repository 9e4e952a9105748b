import { useEffect, useState } from 'preact/hooks';
import { isSignedIn, onSessionChange, signOut, startSignIn } from '../session.js';
import { useHashRoute, useHousehold } from '../hooks.js';
import { LocksPage } from './LocksPage.js';
import { KeysPage } from './KeysPage.js';
import { HistoryPage } from './HistoryPage.js';
import { BookingsPage } from './BookingsPage.js';
import { ChangePassword } from './ChangePassword.js';
import { WebhooksPage } from './WebhooksPage.js';
import { ownsALock, managedLocks, zoneFinder } from '../owner.js';

function SignIn({ message }: { message: string | undefined }) {
  const [busy, setBusy] = useState(false);
  return (
    <main class="signin">
      <h1>eKey Locks</h1>
      <p>Open your doors, share keys and see who came and went.</p>
      {message !== undefined && (
        <p class="error" role="alert">
          {message}
        </p>
      )}
      <button
        type="button"
        class="primary"
        disabled={busy}
        onClick={() => {
          setBusy(true);
          void startSignIn().catch(() => {
            setBusy(false);
          });
        }}
      >
        Sign in
      </button>
    </main>
  );
}

function SignedIn() {
  const route = useHashRoute();
  const household = useHousehold();
  const lockRoute = /^\/locks\/([0-9a-fA-F-]{36})\/(keys|history|bookings)$/.exec(route);
  const lockId = lockRoute?.[1];
  const known = household.data?.keys.find((key) => key.lock_id === lockId && key.status !== 'revoked') ?? household.data?.keys.find((key) => key.lock_id === lockId);
  // docs/design.md §11: webhooks are for users who own a lock; nobody else sees the page or its link.
  const owner = household.data !== undefined && ownsALock(household.data.keys);
  const onWebhooks = route === '/webhooks' && owner;
  useEffect(() => {
    document.querySelector<HTMLElement>('main h1, main h2')?.focus();
  }, [route, onWebhooks]);
  return (
    <>
      <header class="bar">
        <a class="brand" href="#/">
          eKey Locks
        </a>
        <span class="who">{household.data?.me.name}</span>
        {owner && (
          <a href="#/webhooks" aria-current={onWebhooks ? 'page' : undefined}>
            Webhooks
          </a>
        )}
        <a href="#/password">Change password</a>
        <button
          type="button"
          onClick={() => {
            void signOut();
          }}
        >
          Sign out
        </button>
      </header>
      <main>
        {household.error !== undefined && (
          <p class="error" role="alert">
            {household.error}
          </p>
        )}
        {route === '/password' ? (
          <ChangePassword />
        ) : household.data === undefined ? (
          <p role="status">Loading…</p>
        ) : onWebhooks ? (
          <WebhooksPage locks={managedLocks(household.data.keys)} zoneOf={zoneFinder(household.data.keys)} />
        ) : lockId !== undefined && known !== undefined && lockRoute?.[2] === 'keys' ? (
          <KeysPage
            lockId={known.lock_id}
            lockName={known.lock_name}
            zone={known.lock_time_zone}
            keypad={household.data.locks.find((lock) => lock.id === known.lock_id)?.keypad ?? false}
            me={household.data.me}
            onChange={household.reload}
          />
        ) : lockId !== undefined && known !== undefined && lockRoute?.[2] === 'history' ? (
          <HistoryPage
            lockId={known.lock_id}
            lockName={known.lock_name}
            zone={known.lock_time_zone}
            battery={household.data.locks.find((lock) => lock.id === known.lock_id)?.battery_level ?? null}
          />
        ) : lockId !== undefined && known !== undefined && lockRoute?.[2] === 'bookings' ? (
          <BookingsPage
            lockId={known.lock_id}
            lockName={known.lock_name}
            zone={known.lock_time_zone}
            keypad={household.data.locks.find((lock) => lock.id === known.lock_id)?.keypad ?? false}
          />
        ) : (
          <LocksPage household={household.data} reload={household.reload} />
        )}
      </main>
    </>
  );
}

export function App({ message }: { message: string | undefined }) {
  const [signedIn, setSignedIn] = useState(isSignedIn());
  useEffect(() => onSessionChange(setSignedIn), []);
  return signedIn ? <SignedIn /> : <SignIn message={message} />;
}
