import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { api, get, type EKey, type EKeyType, type Me } from '../api.js';
import { errorText } from '../hooks.js';
import { keyWindowText } from '../time.js';
import { ConfirmDialog } from './ConfirmDialog.js';
import { DoorCodeInfo } from './DoorCodeInfo.js';
import { KeyForm, type KeyFields } from './KeyForm.js';

interface Holder {
  user_id: string;
  name: string;
  email: string;
}

const STATUS_WORDS: Readonly<Record<EKey['status'], string>> = { accepted: 'Active', pending: 'Invited', revoked: 'Revoked' };
const TYPE_WORDS: Readonly<Record<EKeyType, string>> = { owner: 'Owner', admin: 'Admin', anytime: 'Anytime', scheduled: 'Scheduled', guest: 'Guest' };

type Say = (text: string, ok: boolean) => void;

/** A revoke or delete waiting for the user's answer. */
interface Asking {
  ekeyId: string;
  who: string;
  kind: 'revoke' | 'delete';
}

const holderEmail = (holder: Holder | undefined): string => holder?.email ?? 'someone who has not signed up yet';

function KeyRow({ ekey, holder, zone, keypad, isMine, onChanged, onAsk, say }: {
  ekey: EKey;
  holder: Holder | undefined;
  zone: string;
  keypad: boolean;
  isMine: boolean;
  onChanged: () => Promise<void>;
  /** Asks before a revoke or delete: the page holds the question, so it outlives this row moving list. */
  onAsk: (kind: Asking['kind']) => void;
  say: Say;
}) {
  const [editing, setEditing] = useState(false);
  const who = holderEmail(holder);
  // An invited person has no name of their own yet (the service makes one up from the address): show the address only.
  const person = ekey.status !== 'pending' && holder !== undefined && holder.name !== '' && holder.name !== holder.email ? holder.name : undefined;
  return (
    <li class={`key key-${ekey.status}`}>
      <div class="key-head">
        <strong class="who-email">{who}</strong>
        {person !== undefined && <span class="muted"> ({person})</span>}
        <span class={`badge badge-${ekey.status}`}>{ekey.status === 'pending' ? 'Invited, not signed up yet' : STATUS_WORDS[ekey.status]}</span>
        <span class="badge">{TYPE_WORDS[ekey.type]}</span>
      </div>
      {ekey.name !== null && <div>Key name: “{ekey.name}”</div>}
      <div class="muted">Works {keyWindowText(ekey, zone)}.</div>
      {ekey.door_code !== null && <DoorCodeInfo doorCode={ekey.door_code} zone={zone} idPrefix={`key-${ekey.id}`} forHolder={false} />}
      {!isMine && (
        <div class="actions">
          {ekey.status !== 'revoked' && (
            <button type="button" onClick={() => { setEditing(!editing); }} aria-expanded={editing} aria-label={`Edit eKey of ${who}`}>
              Edit
            </button>
          )}
          {ekey.status !== 'revoked' && (
            <button type="button" class="danger" onClick={() => { onAsk('revoke'); }} aria-label={`Revoke eKey of ${who}`}>
              Revoke
            </button>
          )}
          <button type="button" class="danger" onClick={() => { onAsk('delete'); }} aria-label={`Delete eKey of ${who}`}>
            Delete
          </button>
        </div>
      )}
      {editing && (
        <KeyForm
          initial={ekey}
          zone={zone}
          keypad={keypad}
          submitLabel="Save changes"
          idPrefix={`edit-${ekey.id}`}
          withEmail={false}
          onCancel={() => { setEditing(false); }}
          onSubmit={async (fields: KeyFields) => {
            try {
              await api('PUT', `/ekey/${ekey.id}`, fields);
              setEditing(false);
              // Said above the lists once they show it: a key that changed list (signed up meanwhile) is a new row.
              await onChanged();
              say(`Saved the eKey of ${who}.`, true);
              return { ok: true, text: `Saved the eKey of ${who}.` };
            } catch (error) {
              return { ok: false, text: errorText(error) };
            }
          }}
        />
      )}
    </li>
  );
}

/** A lock's eKeys: send, edit, revoke, delete (after confirming); pending invitations (owners and admins). */
export function KeysPage({ lockId, lockName, zone, keypad, me, onChange }: {
  lockId: string;
  lockName: string;
  zone: string;
  /** The lock has a keypad: keys may carry door codes (docs/design.md §4c). */
  keypad: boolean;
  me: Me;
  onChange: () => Promise<void>;
}) {
  const [keys, setKeys] = useState<EKey[]>();
  const [holders, setHolders] = useState<Holder[]>([]);
  const [status, setStatus] = useState<{ text: string; ok: boolean }>();
  const statusRef = useRef<HTMLDivElement>(null);
  const load = useCallback(async () => {
    try {
      const [list, people] = await Promise.all([get<{ ekeys: EKey[] }>(`/locks/${lockId}/ekeys`), get<{ holders: Holder[] }>(`/locks/${lockId}/holders`)]);
      setKeys(list.ekeys);
      setHolders(people.holders);
    } catch (error) {
      setStatus({ text: errorText(error), ok: false });
    }
  }, [lockId]);
  useEffect(() => {
    void load();
  }, [load]);
  const changed = async (): Promise<void> => {
    await load();
    await onChange();
  };
  // A revoke or delete is confirmed in a dialog; its outcome is said above the lists, and focus goes there.
  const say: Say = (text, ok) => {
    setStatus({ text, ok });
    requestAnimationFrame(() => {
      statusRef.current?.focus();
    });
  };
  // The question is the page's, not the row's: a reload that moves the key to another list (revoked,
  // signed up meanwhile) makes a new row, and must not take away a dialog the user is answering.
  const [asking, setAsking] = useState<Asking>();
  const remove = async ({ ekeyId, who, kind }: Asking): Promise<void> => {
    const purge = kind === 'delete';
    try {
      await api('DELETE', `/ekey/${ekeyId}${purge ? '?purge=true' : ''}`);
    } catch (error) {
      say(errorText(error), false);
      return;
    }
    // Said once the lists show it.
    await changed();
    say(purge ? `Deleted the eKey of ${who}.` : `Revoked the eKey of ${who}; it stopped working at once.`, true);
  };
  // GET /me carries no e-mail: the caller's own address comes from the lock's holders, read again
  // when the form is sent before the list arrived (a quick owner, a slow phone).
  const myEmail = async (): Promise<string | undefined> => {
    const known = holders.find((holder) => holder.user_id === me.id)?.email ?? me.email;
    if (known !== undefined) return known;
    const people = await get<{ holders: Holder[] }>(`/locks/${lockId}/holders`).catch(() => undefined);
    return people?.holders.find((holder) => holder.user_id === me.id)?.email;
  };
  const holderOf = (key: EKey): Holder | undefined => holders.find((holder) => holder.user_id === key.user_id);
  const pending = (keys ?? []).filter((key) => key.status === 'pending');
  const row = (key: EKey) => (
    <KeyRow
      key={key.id}
      ekey={key}
      holder={holderOf(key)}
      zone={zone}
      keypad={keypad}
      isMine={key.user_id === me.id}
      onChanged={changed}
      onAsk={(kind) => { setAsking({ ekeyId: key.id, who: holderEmail(holderOf(key)), kind }); }}
      say={say}
    />
  );
  return (
    <>
      <p>
        <a href="#/">← All locks</a>
      </p>
      <h1 tabIndex={-1}>Keys of {lockName}</h1>
      <section aria-labelledby="send-heading" class="card">
        <h2 id="send-heading">Send an eKey</h2>
        <KeyForm
          initial={undefined}
          zone={zone}
          keypad={keypad}
          submitLabel="Send eKey"
          idPrefix="send"
          withEmail
          onSubmit={async (fields) => {
            const email = fields.email ?? '';
            const mine = await myEmail();
            if (mine !== undefined && email.toLowerCase() === mine.toLowerCase()) {
              return { ok: false, text: 'That is your own e-mail address: you already hold this lock.' };
            }
            try {
              const sent = await api<EKey>('POST', '/ekey', { ...fields, lock_id: lockId });
              await changed();
              return {
                ok: true,
                text:
                  (sent.status === 'pending'
                    ? `eKey sent to ${email}: an invitation is on its way; the key works once they sign up.`
                    : `eKey sent to ${email}.`) + (sent.door_code === null ? '' : ' Its door code is shown in the list below.'),
              };
            } catch (error) {
              return { ok: false, text: errorText(error) };
            }
          }}
        />
      </section>
      <div ref={statusRef} tabIndex={-1} class="page-outcome">
        <p class="form-outcome" role="status">
          {status?.ok === true ? status.text : ''}
        </p>
        <p class="error" role="alert">
          {status?.ok === false ? status.text : ''}
        </p>
      </div>
      <section aria-labelledby="pending-heading" class="card">
        <h2 id="pending-heading">Pending invitations</h2>
        {pending.length === 0 ? <p class="muted">None: everyone you sent a key to has signed up.</p> : <ul class="keys">{pending.map(row)}</ul>}
      </section>
      <section aria-labelledby="keys-heading" class="card">
        <h2 id="keys-heading">All eKeys</h2>
        {keys === undefined ? <p role="status">Loading…</p> : <ul class="keys">{keys.filter((key) => key.status !== 'pending').map(row)}</ul>}
      </section>
      {asking !== undefined && (
        <ConfirmDialog
          key={`${asking.ekeyId} ${asking.kind}`}
          title={asking.kind === 'revoke' ? `Revoke the eKey of ${asking.who}?` : `Delete the eKey of ${asking.who}?`}
          text={
            asking.kind === 'revoke'
              ? 'It stops working at once. It stays in the list as revoked.'
              : 'It stops working at once and is removed from the list. This cannot be undone.'
          }
          action={asking.kind === 'revoke' ? 'Revoke' : 'Delete'}
          onClose={(confirmed) => {
            setAsking(undefined);
            if (confirmed) void remove(asking);
          }}
        />
      )}
    </>
  );
}
