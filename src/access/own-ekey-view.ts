/**
 * The caller's own eKeys with their usability explained (docs/design.md §7, `GET /users/{user_id}/ekeys`),
 * and the same explanation for a refused command.
 */
import { usabilityReport, type NotUsableReason, type UsabilityReport } from '../domain/ekey-usability-report.js';
import type { EKey } from '../domain/ekey-types.js';
import { toEKeyView, type EKeyView } from './ekey-view.js';
import type { DoorCodeView } from './door-code-service.js';

/** An eKey object plus the lock it opens and when it works. Instants are ISO 8601 UTC. */
export interface OwnEKeyView extends EKeyView {
  lock_name: string;
  lock_time_zone: string;
  usable_now: boolean;
  not_usable_because: NotUsableReason | null;
  next_usable_at: string | null;
  usable_until: string | null;
}

/** The usability part of {@link OwnEKeyView}, as the API writes it. */
export interface UsabilityFieldsView {
  usable_now: boolean;
  not_usable_because: NotUsableReason | null;
  next_usable_at: string | null;
  usable_until: string | null;
}

const iso = (instant: number | null): string | null => (instant === null ? null : new Date(instant).toISOString());

/** A report in its wire form. */
export function usabilityView(report: UsabilityReport): UsabilityFieldsView {
  return {
    usable_now: report.usable_now,
    not_usable_because: report.not_usable_because,
    next_usable_at: iso(report.next_usable_at),
    usable_until: iso(report.usable_until),
  };
}

/** One own key at `nowMs`, judged on the lock's clock. */
export function ownEKeyView(key: EKey, lock: { name: string; timeZone: string }, nowMs: number, doorCode: DoorCodeView | null = null): OwnEKeyView {
  return {
    ...toEKeyView(key, lock.timeZone, doorCode),
    lock_name: lock.name,
    lock_time_zone: lock.timeZone,
    ...usabilityView(usabilityReport(key, nowMs, lock.timeZone)),
  };
}
