/**
 * The typed client declares the API's bodies itself (it imports no server code): these checks fail
 * `npm run typecheck` when the server's own definitions and the client's drift apart. The web app
 * takes its copies of these bodies from the client (web/src/api.ts), so they hold it too.
 */
import { describe, expect, it } from '@jest/globals';
import type { SendEKeyRequest as ServiceSendEKeyRequest } from '../../../src/access/ekey-service.js';
import type { EKeyView } from '../../../src/access/ekey-view.js';
import type { DoorCodeView } from '../../../src/access/door-code-service.js';
import type { LockView } from '../../../src/access/lock-service.js';
import type { GatewayView } from '../../../src/access/gateway-service.js';
import type { CalendarInput, CalendarView } from '../../../src/calendars/calendar-service.js';
import type { Problem as ServiceProblem } from '../../../src/api/problem.js';
import type { Calendar, CalendarRequest, DoorCode, EKey, EKeyType, Gateway, Lock, Problem, SendEKeyRequest } from '../../../src/client/api-types.js';

/** An intersection as one object type. */
type Flat<T> = { [K in keyof T]: T[K] };
/** Each assignable to the other, with the same property names (optional ones included). */
type Same<A, B> = [Flat<A>] extends [Flat<B>] ? ([Flat<B>] extends [Flat<A>] ? ([keyof A] extends [keyof B] ? ([keyof B] extends [keyof A] ? true : false) : false) : false) : false;

const sameEKey: Same<EKey, EKeyView> = true;
const sameDoorCode: Same<DoorCode, DoorCodeView> = true;
const sameProblem: Same<Problem, ServiceProblem> = true;
const sameLock: Same<Lock, LockView> = true;
const sameGateway: Same<Gateway, GatewayView> = true;
const sameCalendar: Same<Calendar, CalendarView> = true;
const sameCalendarRequest: Same<CalendarRequest, CalendarInput> = true;
/** The service takes any string as `type` (and answers 400 for an unknown one); the client narrows it. */
const sameSendRequest: Same<SendEKeyRequest, Omit<ServiceSendEKeyRequest, 'type'> & { type: EKeyType }> = true;

describe('the typed client’s body types', () => {
  it('are the server’s (checked by the typecheck)', () => {
    expect([sameEKey, sameDoorCode, sameProblem, sameLock, sameGateway, sameSendRequest, sameCalendar, sameCalendarRequest]).toEqual([true, true, true, true, true, true, true, true]);
  });
});
