/**
 * The invariants of an eKey's client-editable fields, applied on creation (`POST /ekey`) and after
 * a PUT merge: type-specific windows and schedules, DateTime parsing in the lock's zone, string
 * limits. Errors come back as a FieldError list for `validationFailed` (400).
 */
import { deceptiveTextProblem } from './display-text.js';
import { parseEKeyDateTime } from './ekey-datetime.js';
import { isUnrestrictedSchedule, UNRESTRICTED_SCHEDULE, validateSchedule } from './ekey-schedule.js';
import { EKEY_TYPES, isEKeyType } from './ekey-types.js';
import type { EKeyFields, EKeyType } from './ekey-types.js';
import { validationFailed } from './errors.js';
import type { FieldError } from './errors.js';

/** A guest key lasts this long after `valid_from` (spec: Limits — guest eKey validity 24 hours). */
export const GUEST_VALIDITY_MS = 24 * 60 * 60 * 1000;

/** Longest `name`, in Unicode code points (ours; the spec gives no string limits). */
export const NAME_MAX_LENGTH = 100;

/** Longest `message`, in Unicode code points (ours; the spec gives no string limits). */
export const MESSAGE_MAX_LENGTH = 500;

/** The moment and place the rules run in. */
export interface EKeyRulesContext {
  /** Current time, epoch ms (from the injected Clock). */
  now: number;
  /** The lock's IANA time zone; DateTimes in the request are read in it. */
  zone: string;
}

/** Body of `POST /ekey` as far as the eKey's own fields go (recipient and lock are the service's). */
export interface EKeyCreateInput {
  type: string;
  name?: string | null;
  message?: string | null;
  /** Wire DateTime (`M/D/YYYY h:mm:ss AM|PM` in the lock zone, or ISO 8601 with offset). */
  valid_from?: string | null;
  valid_to?: string | null;
  /** Six-field schedule expression. */
  schedule_start?: string | null;
  schedule_end?: string | null;
}

/**
 * Body of `PUT /ekey/{id}`: a property that is absent (`undefined`) stays as stored; one sent as
 * `null` resets to its default (spec: general conventions, rule 4).
 */
export type EKeyPatch = { [Field in keyof EKeyCreateInput]?: EKeyCreateInput[Field] | null };

/** The normalized fields, or every problem found. */
export type EKeyRulesResult = { ok: true; fields: EKeyFields } | { ok: false; errors: FieldError[] };

/**
 * Validates and normalizes the fields of a new eKey.
 * - `guest`: `valid_from` defaults to now; `valid_to` is `valid_from` + 24 h (a supplied
 *   `valid_to` must equal that); schedules must be absent, `null` or six asterisks.
 * - `owner`, `admin`, `anytime`: schedules absent, `null` or six asterisks, stored as `null`.
 * - `scheduled`: `schedule_start` and `schedule_end` both required, not both unrestricted, not equal.
 * - Every type: `valid_to` after `valid_from` and after now; `name` ≤ 100, `message` ≤ 500.
 * - Defaults: `name`, `message`, `valid_from` (non-guest) and `valid_to` (non-guest) are `null`.
 */
export function normalizeEKeyCreation(input: EKeyCreateInput, context: EKeyRulesContext): EKeyRulesResult {
  const errors: FieldError[] = [];
  if (!isEKeyType(input.type)) {
    errors.push({ field: '/type', message: `must be one of ${EKEY_TYPES.join(', ')}` });
  }
  const draft: Draft = {
    name: readText(input.name, '/name', NAME_MAX_LENGTH, errors, validateName),
    message: readText(input.message, '/message', MESSAGE_MAX_LENGTH, errors, validateMessage),
    validFrom: readDateTime(input.valid_from, '/valid_from', context.zone, errors),
    validTo: readDateTime(input.valid_to, '/valid_to', context.zone, errors),
    validToSupplied: typeof input.valid_to === 'string',
    scheduleStart: readSchedule(input.schedule_start, '/schedule_start', errors),
    scheduleEnd: readSchedule(input.schedule_end, '/schedule_end', errors),
  };
  if (errors.length > 0 || !isEKeyType(input.type)) return { ok: false, errors };
  return finish(input.type, draft, null, context);
}

/**
 * Applies a PUT patch to a stored key and re-checks every invariant of
 * {@link normalizeEKeyCreation}. Type changes carry their consequences:
 * - to `guest`: the 24-hour window is recomputed, starting now unless the patch gives `valid_from`;
 * - to a type other than `scheduled`: schedules the patch leaves absent are cleared;
 * - to `scheduled`: the merged key needs both schedules.
 * `type: null` is refused (a type has no default). A merged `valid_to` that changed must lie in the
 * future; an unchanged one may already have passed (renaming an expired key is fine).
 */
export function mergeEKeyUpdate(stored: EKeyFields, patch: EKeyPatch, context: EKeyRulesContext): EKeyRulesResult {
  const errors: FieldError[] = [];
  let type: EKeyType = stored.type;
  if (patch.type === null) {
    errors.push({ field: '/type', message: 'cannot be reset: an eKey type has no default' });
  } else if (patch.type !== undefined) {
    if (isEKeyType(patch.type)) type = patch.type;
    else errors.push({ field: '/type', message: `must be one of ${EKEY_TYPES.join(', ')}` });
  }
  const typeChanged = type !== stored.type;
  const schedulesCleared = type !== 'scheduled';
  const draft: Draft = {
    name: patch.name === undefined ? stored.name : readText(patch.name, '/name', NAME_MAX_LENGTH, errors, validateName),
    message:
      patch.message === undefined
        ? stored.message
        : readText(patch.message, '/message', MESSAGE_MAX_LENGTH, errors, validateMessage),
    // Converting to guest restarts the 24-hour window unless the patch says when it starts.
    validFrom:
      patch.valid_from === undefined
        ? type === 'guest' && typeChanged
          ? null
          : stored.valid_from
        : readDateTime(patch.valid_from, '/valid_from', context.zone, errors),
    validTo:
      patch.valid_to === undefined ? stored.valid_to : readDateTime(patch.valid_to, '/valid_to', context.zone, errors),
    validToSupplied: typeof patch.valid_to === 'string',
    scheduleStart:
      patch.schedule_start === undefined
        ? schedulesCleared
          ? null
          : stored.schedule_start
        : readSchedule(patch.schedule_start, '/schedule_start', errors),
    scheduleEnd:
      patch.schedule_end === undefined
        ? schedulesCleared
          ? null
          : stored.schedule_end
        : readSchedule(patch.schedule_end, '/schedule_end', errors),
  };
  if (errors.length > 0) return { ok: false, errors };
  return finish(type, draft, stored, context);
}

/**
 * The fields of an OK result; otherwise throws `validationFailed` (400) with the field errors.
 *
 * @throws ServiceError `validation_failed`.
 */
export function fieldsOrThrow(result: EKeyRulesResult): EKeyFields {
  if (!result.ok) throw validationFailed(result.errors);
  return result.fields;
}

/** Values read from the request (or kept from the stored key) before the type-specific rules. */
interface Draft {
  name: string | null;
  message: string | null;
  validFrom: number | null;
  validTo: number | null;
  /** True when the request itself carried a `valid_to` DateTime. */
  validToSupplied: boolean;
  /** Normalized expression, or null when absent/null. */
  scheduleStart: string | null;
  scheduleEnd: string | null;
}

function finish(type: EKeyType, draft: Draft, stored: EKeyFields | null, context: EKeyRulesContext): EKeyRulesResult {
  const errors: FieldError[] = [];
  let validFrom = draft.validFrom;
  let validTo = draft.validTo;
  let scheduleStart: string | null = null;
  let scheduleEnd: string | null = null;

  if (type === 'scheduled') {
    // docs/design.md §3 eKeys: scheduled requires schedule_start and schedule_end.
    if (draft.scheduleStart === null) errors.push({ field: '/schedule_start', message: 'is required for a scheduled eKey' });
    if (draft.scheduleEnd === null) errors.push({ field: '/schedule_end', message: 'is required for a scheduled eKey' });
    if (draft.scheduleStart !== null && draft.scheduleEnd !== null) {
      if (isUnrestrictedSchedule(draft.scheduleStart) && isUnrestrictedSchedule(draft.scheduleEnd)) {
        errors.push({
          field: '/schedule_start',
          message: 'a scheduled eKey needs at least one restricting schedule; use type anytime for no restriction',
        });
      } else if (draft.scheduleStart === draft.scheduleEnd) {
        // Start and end on the same minute: the end wins, so the key would never open.
        errors.push({ field: '/schedule_end', message: 'must differ from schedule_start (the window would never open)' });
      }
    }
    scheduleStart = draft.scheduleStart;
    scheduleEnd = draft.scheduleEnd;
  } else {
    // docs/design.md §3 eKeys: owner/admin/anytime (and guest, spec POST /ekey) carry no schedule.
    for (const [field, value] of [
      ['/schedule_start', draft.scheduleStart],
      ['/schedule_end', draft.scheduleEnd],
    ] as const) {
      if (!isUnrestrictedSchedule(value)) {
        errors.push({ field, message: `must be null or "${UNRESTRICTED_SCHEDULE}" for a ${type} eKey; only scheduled eKeys have schedules` });
      }
    }
  }

  if (type === 'guest') {
    // Spec: POST /ekey — for type guest, valid_to is 24 hours after valid_from.
    // A guest window without a start (omitted, reset with null, or a conversion to guest) starts now.
    validFrom ??= wholeSecond(context.now);
    const guestEnd = validFrom + GUEST_VALIDITY_MS;
    if (draft.validToSupplied && validTo !== guestEnd) {
      errors.push({ field: '/valid_to', message: 'a guest eKey ends exactly 24 hours after valid_from; omit valid_to' });
    }
    validTo = guestEnd;
    if (validTo <= context.now && validTo !== stored?.valid_to) {
      errors.push({ field: '/valid_from', message: 'a guest eKey starting then would already have expired' });
    }
  } else if (validTo !== null) {
    if (validFrom !== null && validTo <= validFrom) {
      errors.push({ field: '/valid_to', message: 'must be after valid_from' });
    } else if (validTo <= context.now && validTo !== stored?.valid_to) {
      errors.push({ field: '/valid_to', message: 'must be in the future' });
    }
  }

  if (errors.length > 0) return { ok: false, errors };
  return {
    ok: true,
    fields: {
      name: draft.name,
      type,
      message: draft.message,
      valid_from: validFrom,
      valid_to: validTo,
      schedule_start: scheduleStart,
      schedule_end: scheduleEnd,
    },
  };
}

function wholeSecond(epochMs: number): number {
  return Math.floor(epochMs / 1000) * 1000;
}

function readDateTime(value: string | null | undefined, field: string, zone: string, errors: FieldError[]): number | null {
  if (value === undefined || value === null) return null;
  const parsed = parseEKeyDateTime(value, zone);
  if (parsed.ok) return parsed.epochMs;
  errors.push({ field, message: parsed.message });
  return null;
}

function readSchedule(value: string | null | undefined, field: string, errors: FieldError[]): string | null {
  if (value === undefined || value === null) return null;
  const result = validateSchedule(value, field);
  if (result.ok) return result.schedule.expression;
  errors.push(...result.errors);
  return null;
}

function readText(
  value: string | null | undefined,
  field: string,
  maxLength: number,
  errors: FieldError[],
  validate: (text: string) => string | null,
): string | null {
  if (value === undefined || value === null) return null;
  const length = Array.from(value).length;
  const problem = length > maxLength ? `must be at most ${maxLength} characters; got ${length}` : validate(value);
  if (problem === null) return value;
  errors.push({ field, message: problem });
  return null;
}

// Names show up in lists and logs: one line, not blank, and showing what they say (display-text.ts).
function validateName(text: string): string | null {
  if (text.trim() === '') return 'must not be empty; send null to clear it';
  if (/\p{Cc}/u.test(text)) return 'must not contain control characters such as line breaks';
  return deceptiveTextProblem(text);
}

// Messages may span lines, but no other control characters, and nothing that disguises them.
function validateMessage(text: string): string | null {
  return /[^\P{Cc}\t\n\r]/u.test(text) ? 'must not contain control characters other than tab and line breaks' : deceptiveTextProblem(text);
}
