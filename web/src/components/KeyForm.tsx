import { useEffect, useRef, useState } from 'preact/hooks';
import type { EKey, EKeyType } from '../api.js';
import { fromExpressions, scheduleProblems, toExpressions, type WeeklySchedule } from '../schedule-editor.js';
import { localInputToSpec, specToLocalInput } from '../time.js';
import { ScheduleEditor } from './ScheduleEditor.js';

export const TYPES: readonly { value: EKeyType; label: string }[] = [
  { value: 'guest', label: 'Guest (24 hours)' },
  { value: 'scheduled', label: 'Scheduled (weekly hours)' },
  { value: 'anytime', label: 'Anytime' },
  { value: 'admin', label: 'Admin (manages keys)' },
  { value: 'owner', label: 'Owner' },
];

const DEFAULT_SCHEDULE: WeeklySchedule = { days: [1, 2, 3, 4, 5], from: '09:00', to: '17:00' };

/** The editable fields of an eKey as the API takes them. */
export type KeyFields = Partial<Pick<EKey, 'type' | 'name' | 'message' | 'valid_from' | 'valid_to' | 'schedule_start' | 'schedule_end'>> & { email?: string; door_code?: boolean };

/** Whether a key has a door code that is not being taken away. */
const hasDoorCode = (key: EKey | undefined): boolean => key?.door_code != null && key.door_code.state !== 'removing' && key.door_code.state !== 'removed';

/**
 * Send (with an e-mail field) or edit an eKey: type, name, validity window in the lock's zone,
 * schedule, and on a lock with a keypad the `Door code` checkbox (ticked by default when sending:
 * docs/design.md §4c). `onSubmit` answers whether it worked, in words: the outcome is shown right under the
 * button that was pressed (docs/design.md §7: where the user is looking), a sent key's form cleared.
 */
export function KeyForm({ initial, zone, keypad, submitLabel, idPrefix, withEmail, onSubmit, onCancel }: {
  initial: EKey | undefined;
  zone: string;
  /** The lock has a keypad: the form offers a door code. */
  keypad: boolean;
  submitLabel: string;
  idPrefix: string;
  withEmail: boolean;
  onSubmit: (fields: KeyFields) => Promise<{ ok: boolean; text: string }>;
  onCancel?: () => void;
}) {
  const [email, setEmail] = useState('');
  const [type, setType] = useState<EKeyType>(initial?.type ?? 'guest');
  const [name, setName] = useState(initial?.name ?? '');
  const [message, setMessage] = useState(initial?.message ?? '');
  const [validFrom, setValidFrom] = useState(specToLocalInput(initial?.valid_from ?? null));
  const [validTo, setValidTo] = useState(specToLocalInput(initial?.valid_to ?? null));
  const readBack = initial === undefined ? null : fromExpressions(initial.schedule_start, initial.schedule_end);
  const [schedule, setSchedule] = useState<WeeklySchedule>(readBack ?? DEFAULT_SCHEDULE);
  const [doorCode, setDoorCode] = useState(initial === undefined ? true : hasDoorCode(initial));
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<{ ok: boolean; text: string }>();
  const outcomeRef = useRef<HTMLDivElement>(null);
  const id = (field: string): string => `${idPrefix}-${field}`;
  // The outcome is said under the button that was pressed, and scrolled into view on a small screen.
  useEffect(() => {
    if (outcome !== undefined) outcomeRef.current?.scrollIntoView({ block: 'nearest' });
  }, [outcome]);

  const clear = (): void => {
    setEmail('');
    setType('guest');
    setName('');
    setMessage('');
    setValidFrom('');
    setValidTo('');
    setSchedule(DEFAULT_SCHEDULE);
    setDoorCode(true);
  };

  const submit = async (event: Event): Promise<void> => {
    event.preventDefault();
    if (busy) return;
    if (type === 'scheduled' && scheduleProblems(schedule).length > 0) return;
    if (type !== 'guest' && validFrom !== '' && validTo !== '' && validTo <= validFrom) {
      setOutcome({ ok: false, text: 'The end must be after the start.' });
      return;
    }
    const fields: KeyFields = {
      type,
      name: name.trim() === '' ? null : name.trim(),
      valid_from: validFrom === '' ? null : localInputToSpec(validFrom),
      ...(type === 'guest' ? {} : { valid_to: validTo === '' ? null : localInputToSpec(validTo) }),
      ...(type === 'scheduled' ? toExpressions(schedule) : { schedule_start: null, schedule_end: null }),
    };
    // Sent only when it says something: a new key with a code, or a change of an existing key's.
    if (keypad && (initial === undefined ? doorCode : doorCode !== hasDoorCode(initial))) fields.door_code = doorCode;
    if (withEmail) {
      fields.email = email.trim();
      if (message.trim() !== '') fields.message = message.trim();
    }
    setBusy(true);
    setOutcome(undefined);
    try {
      const result = await onSubmit(fields);
      if (result.ok && withEmail) clear();
      setOutcome(result);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form class="key-form" onSubmit={(event) => void submit(event)}>
      {withEmail && (
        <>
          <label for={id('email')}>E-mail</label>
          <input id={id('email')} type="email" autocomplete="email" required value={email} onInput={(event) => { setEmail(event.currentTarget.value); }} />
        </>
      )}
      <label for={id('type')}>Type</label>
      <select id={id('type')} value={type} onChange={(event) => { setType(event.currentTarget.value as EKeyType); }}>
        {TYPES.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </select>
      <label for={id('name')}>Key name (optional)</label>
      <input id={id('name')} type="text" maxLength={100} value={name} aria-describedby={id('name-hint')} onInput={(event) => { setName(event.currentTarget.value); }} />
      <p class="hint field-hint" id={id('name-hint')}>
        Names the key, not the person: for example “Cleaner, Tuesdays”.
      </p>
      {withEmail && (
        <>
          <label for={id('message')}>Message (optional)</label>
          <input id={id('message')} type="text" maxLength={500} value={message} onInput={(event) => { setMessage(event.currentTarget.value); }} />
        </>
      )}
      <div class="window">
        <div>
          <label for={id('from')}>Valid from ({zone})</label>
          <input id={id('from')} type="datetime-local" value={validFrom} onInput={(event) => { setValidFrom(event.currentTarget.value); }} />
        </div>
        {type !== 'guest' && (
          <div>
            <label for={id('to')}>Valid until ({zone})</label>
            <input id={id('to')} type="datetime-local" value={validTo} onInput={(event) => { setValidTo(event.currentTarget.value); }} />
          </div>
        )}
      </div>
      {type === 'guest' && <p class="hint">A guest key works for 24 hours from its start (now, when left empty).</p>}
      {type === 'scheduled' && <ScheduleEditor value={schedule} zone={zone} onChange={setSchedule} idPrefix={idPrefix} />}
      {type === 'scheduled' && readBack === undefined && initial !== undefined && (
        <p class="hint">
          This key has custom hours that cannot be shown as weekdays and times; saving replaces them with the hours above.
        </p>
      )}
      {keypad && (
        <>
          <label class="check" for={id('door-code')}>
            <input id={id('door-code')} type="checkbox" checked={doorCode} aria-describedby={id('door-code-hint')} onChange={(event) => { setDoorCode(event.currentTarget.checked); }} />
            Door code
          </label>
          <p class="hint field-hint" id={id('door-code-hint')}>
            {doorCode
              ? 'Six digits for the keypad at the door, written onto the lock with the hours above. They see it in the app; it works with no network.'
              : 'No code on the keypad: the key opens the door from the app only.'}
          </p>
        </>
      )}
      <div class="actions">
        <button type="submit" class="primary" aria-disabled={busy ? 'true' : undefined}>
          {submitLabel}
        </button>
        {onCancel && (
          <button type="button" onClick={onCancel}>
            Cancel
          </button>
        )}
      </div>
      <div ref={outcomeRef}>
        <p class="form-outcome" role="status">
          {outcome?.ok === true ? outcome.text : ''}
        </p>
        <p class="error" role="alert">
          {outcome?.ok === false ? outcome.text : ''}
        </p>
      </div>
    </form>
  );
}
