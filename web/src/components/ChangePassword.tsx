import { useState } from 'preact/hooks';
import { ApiError, api } from '../api.js';
import { continueSessionWith, type TokenAnswer } from '../session.js';

/** Plain-language text for a refused change (docs/design.md §7: no field names or HTTP words). */
function explain(error: unknown): string {
  if (error instanceof ApiError) {
    if (error.problem.code === 'wrong_password') return 'Your current password is not correct.';
    if (error.problem.code === 'validation_failed') return 'Choose a new password of at least 8 characters.';
    if (error.problem.code === 'too_many_password_attempts') return 'Too many wrong passwords. Please wait a quarter of an hour and try again.';
    if (error.problem.status === 429) return 'Too many attempts. Please wait a minute and try again.';
  }
  return 'The password could not be changed. Please try again.';
}

/**
 * Change your password (docs/design.md §9b): the current one, the new one twice. On success every
 * other session of yours is signed out; this one goes on with the new tokens the answer carries.
 */
export function ChangePassword() {
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [repeat, setRepeat] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>(undefined);
  const [done, setDone] = useState(false);

  const submit = async (event: Event): Promise<void> => {
    event.preventDefault();
    setDone(false);
    if (next !== repeat) {
      setError('The two new passwords are not the same.');
      return;
    }
    setBusy(true);
    setError(undefined);
    try {
      // Every session ends, this one too: it goes on with the new tokens of the answer.
      await continueSessionWith(api<TokenAnswer>('PUT', '/me/password', { current_password: current, new_password: next }));
      setCurrent('');
      setNext('');
      setRepeat('');
      setDone(true);
    } catch (failure) {
      setError(explain(failure));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section aria-labelledby="password-title">
      <h2 id="password-title" tabIndex={-1}>
        Change password
      </h2>
      <form onSubmit={(event) => void submit(event)}>
        <label for="current-password">Current password</label>
        <input id="current-password" type="password" autocomplete="current-password" required value={current} onInput={(event) => { setCurrent(event.currentTarget.value); }} />
        <label for="new-password">New password (at least 8 characters)</label>
        <input id="new-password" type="password" autocomplete="new-password" minLength={8} required value={next} onInput={(event) => { setNext(event.currentTarget.value); }} />
        <label for="repeat-password">New password again</label>
        <input id="repeat-password" type="password" autocomplete="new-password" minLength={8} required value={repeat} onInput={(event) => { setRepeat(event.currentTarget.value); }} />
        {error !== undefined && (
          <p class="error" role="alert">
            {error}
          </p>
        )}
        {done && <p role="status">Your password is changed. You were signed out on your other devices.</p>}
        <button type="submit" class="primary" disabled={busy}>
          Change password
        </button>
      </form>
      <p>
        <a href="#/">Back to your locks</a>
      </p>
    </section>
  );
}
