import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, get, type Lock, type Me, type OwnKey } from './api.js';
import { SignedOutError } from './session.js';

/** The part of the URL after `#`, e.g. `/locks/ID/keys`. */
export function useHashRoute(): string {
  const read = (): string => location.hash.replace(/^#/, '') || '/';
  const [route, setRoute] = useState(read);
  useEffect(() => {
    const update = (): void => {
      setRoute(read());
    };
    addEventListener('hashchange', update);
    return () => {
      removeEventListener('hashchange', update);
    };
  }, []);
  return route;
}

export interface Household {
  me: Me;
  /** Locks usable now, with live state. */
  locks: Lock[];
  /** One's own keys, with when each works. */
  keys: OwnKey[];
}

/** Any failure in the user's words: a refusal as mapped, a lost connection as such (never a browser's text). */
export const errorText = (error: unknown): string =>
  error instanceof ApiError || error instanceof SignedOutError ? error.message : 'The service cannot be reached: check the connection and try again.';

/** Who is signed in, their usable locks and their keys; re-read every 5 s and on demand. */
export function useHousehold(): { data: Household | undefined; error: string | undefined; reload: () => Promise<void> } {
  const [data, setData] = useState<Household>();
  const [error, setError] = useState<string>();
  const me = useRef<Me>();
  const reload = useCallback(async () => {
    try {
      me.current ??= await get<Me>('/me');
      const id = me.current.id;
      const [locks, keys] = await Promise.all([get<{ locks: Lock[] }>(`/users/${id}/locks`), get<{ ekeys: OwnKey[] }>(`/users/${id}/ekeys`)]);
      setData({ me: me.current, locks: locks.locks, keys: keys.ekeys });
      setError(undefined);
    } catch (failure) {
      setError(errorText(failure));
    }
  }, []);
  useEffect(() => {
    void reload();
    const timer = setInterval(() => {
      if (document.visibilityState === 'visible') void reload();
    }, 5000);
    return () => {
      clearInterval(timer);
    };
  }, [reload]);
  return { data, error, reload };
}
