import { useCallback, useEffect, useState } from 'preact/hooks';
import { ApiError, api, get, type EKey } from '../api.js';
import { scheduleText } from '../explain.js';
import { errorText } from '../hooks.js';
import { specForHumans } from '../time.js';
import { KeyForm, type KeyFields } from './KeyForm.js';

interface Holder {
  user_id: string;
  name: string;
  email: string;
}

function problemText(error: unknown): string {
  if (error instanceof ApiError && error.problem.errors && error.problem.errors.length > 0) {
    return `${error.message} ${error.problem.errors.map((issue) => `${issue.field.replace(/^\//, '')} ${issue.message}`).join('; ')}.`;
  }
  return errorText(error);
}

function KeyRow({ ekey, holder, zone, isMine, onChanged, say }: { ekey: EKey; holder: Holder | undefined; zone: string; isMine: boolean; onChanged: () => Promise<void>; say: (text: string) => void }) {
  const [editing, setEditing] = useState(false);
  const who = holder?.email ?? ekey.user_id;
  const schedule = scheduleText(ekey, zone);
  const remove = async (purge: boolean): Promise<void> => {
    try {
      await api('DELETE', `/ekey/${ekey.id}${purge ? '?purge=true' : ''}`);
      say(purge ? `Deleted the eKey of ${who}.` : `Revoked the eKey of ${who}; it stopped working at once.`);
      await onChanged();
    } catch (error) {
      say(problemText(error));
    }
  };
  return (
    <li class={`key key-${ekey.status}`}>
      <div class="key-head">
        <strong>{who}</strong>
        {holder && holder.name !== who && <span class="muted"> ({holder.name})</span>}
        <span class={`badge badge-${ekey.status}`}>{ekey.status}</span>
        <span class="badge">{ekey.type}</span>
      </div>
      {ekey.name !== null && <div>“{ekey.name}”</div>}
      <div class="muted">
        {schedule !== undefined && <>Hours: {schedule}. </>}
        {ekey.valid_from !== null && <>From {specForHumans(ekey.valid_from)}. </>}
        {ekey.valid_to !== null && <>Until {specForHumans(ekey.valid_to)}.</>}
      </div>
      {!isMine && (
        <div class="actions">
          {ekey.status !== 'revoked' && (
            <button type="button" onClick={() => { setEditing(!editing); }} aria-expanded={editing} aria-label={`Edit eKey of ${who}`}>
              Edit
            </button>
          )}
          {ekey.status !== 'revoked' && (
            <button type="button" class="danger" onClick={() => void remove(false)} aria-label={`Revoke eKey of ${who}`}>
              Revoke
            </button>
          )}
          <button type="button" class="danger" onClick={() => void remove(true)} aria-label={`Delete eKey of ${who}`}>
            Delete
          </button>
        </div>
      )}
      {editing && (
        <KeyForm
          initial={ekey}
          zone={zone}
          submitLabel="Save changes"
          idPrefix={`edit-${ekey.id}`}
          withEmail={false}
          onCancel={() => { setEditing(false); }}
          onSubmit={async (fields: KeyFields) => {
            try {
              await api('PUT', `/ekey/${ekey.id}`, fields);
              setEditing(false);
              say(`Saved the eKey of ${who}.`);
              await onChanged();
            } catch (error) {
              say(problemText(error));
            }
          }}
        />
      )}
    </li>
  );
}

/** A lock's eKeys: send, edit, revoke, delete; pending invitations (owners and admins). */
export function KeysPage({ lockId, lockName, zone, meId, onChange }: { lockId: string; lockName: string; zone: string; meId: string; onChange: () => Promise<void> }) {
  const [keys, setKeys] = useState<EKey[]>();
  const [holders, setHolders] = useState<Holder[]>([]);
  const [status, setStatus] = useState<string>();
  const load = useCallback(async () => {
    try {
      const [list, people] = await Promise.all([get<{ ekeys: EKey[] }>(`/locks/${lockId}/ekeys`), get<{ holders: Holder[] }>(`/locks/${lockId}/holders`)]);
      setKeys(list.ekeys);
      setHolders(people.holders);
    } catch (error) {
      setStatus(errorText(error));
    }
  }, [lockId]);
  useEffect(() => {
    void load();
  }, [load]);
  const changed = async (): Promise<void> => {
    await load();
    await onChange();
  };
  const holderOf = (key: EKey): Holder | undefined => holders.find((holder) => holder.user_id === key.user_id);
  const pending = (keys ?? []).filter((key) => key.status === 'pending');
  const row = (key: EKey) => <KeyRow key={key.id} ekey={key} holder={holderOf(key)} zone={zone} isMine={key.user_id === meId} onChanged={changed} say={setStatus} />;
  return (
    <>
      <p>
        <a href="#/">← All locks</a>
      </p>
      <h1 tabIndex={-1}>Keys of {lockName}</h1>
      <p class="status" role="status" aria-live="polite">
        {status}
      </p>
      <section aria-labelledby="send-heading" class="card">
        <h2 id="send-heading">Send an eKey</h2>
        <KeyForm
          initial={undefined}
          zone={zone}
          submitLabel="Send eKey"
          idPrefix="send"
          withEmail
          onSubmit={async (fields) => {
            try {
              const sent = await api<EKey>('POST', '/ekey', { ...fields, lock_id: lockId });
              setStatus(
                sent.status === 'pending'
                  ? `eKey sent to ${fields.email ?? ''}: an invitation is on its way; the key works once they sign up.`
                  : `eKey sent to ${fields.email ?? ''}.`,
              );
              await changed();
            } catch (error) {
              setStatus(problemText(error));
            }
          }}
        />
      </section>
      <section aria-labelledby="pending-heading" class="card">
        <h2 id="pending-heading">Pending invitations</h2>
        {pending.length === 0 ? <p class="muted">None: everyone you sent a key to has signed up.</p> : <ul class="keys">{pending.map(row)}</ul>}
      </section>
      <section aria-labelledby="keys-heading" class="card">
        <h2 id="keys-heading">All eKeys</h2>
        {keys === undefined ? <p role="status">Loading…</p> : <ul class="keys">{keys.filter((key) => key.status !== 'pending').map(row)}</ul>}
      </section>
    </>
  );
}
