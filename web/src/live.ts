/**
 * A lock's live events (`GET /locks/{id}/events/stream`, Server-Sent Events). EventSource cannot
 * send a bearer token, so @microsoft/fetch-event-source reads the stream over fetch (with
 * Last-Event-ID on reconnect).
 */
import { fetchEventSource } from '@microsoft/fetch-event-source';
import type { LockEvent } from './api.js';
import { accessToken, refreshNow } from './session.js';

/** The token was refused: reconnect with a fresh one. */
class Reauthenticate extends Error {}
class Fatal extends Error {}

/** Calls `onEvent` for each live event until the returned function is called. */
export function subscribeLockEvents(lockId: string, onEvent: (event: LockEvent) => void): () => void {
  const controller = new AbortController();
  const connect = async (token: string): Promise<void> => {
    await fetchEventSource(new URL(`/locks/${lockId}/events/stream`, location.origin).toString(), {
      signal: controller.signal,
      headers: { accept: 'text/event-stream', authorization: `Bearer ${token}` },
      openWhenHidden: true,
      onopen: (response) => {
        if (response.ok) return Promise.resolve();
        return Promise.reject(response.status === 401 ? new Reauthenticate() : new Fatal(`event stream: ${response.status}`));
      },
      onmessage: (message) => {
        if (message.data === '') return;
        try {
          onEvent(JSON.parse(message.data) as LockEvent);
        } catch {
          // Not an event of ours: ignore it.
        }
      },
      onerror: (error: unknown) => {
        if (error instanceof Fatal || error instanceof Reauthenticate) throw error;
        return 1000;
      },
    });
  };
  const run = async (): Promise<void> => {
    let token = await accessToken();
    for (let attempt = 0; attempt < 3 && !controller.signal.aborted; attempt += 1) {
      try {
        await connect(token);
        return;
      } catch (error) {
        if (!(error instanceof Reauthenticate)) throw error;
        token = await refreshNow();
      }
    }
  };
  run().catch(() => {
    // Stopped (signed out, lock no longer visible): the page still refreshes on its own.
  });
  return () => { controller.abort(); };
}
