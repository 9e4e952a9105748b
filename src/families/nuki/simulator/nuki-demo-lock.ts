import { describeError } from '../../../domain/errors.js';
import { JAMMED_ERROR, type DemoDevice, type DemoKeypadCode, type DemoOperation, type DemoOperationContext, type DemoOperationResult } from '../../lock-family-module.js';
import type { NukiKeypadCode } from '../protocol/nuki-keypad-messages.js';
import { windowOfKeypadLimits } from '../protocol/nuki-keypad-window.js';
import { SimulatedNuki } from './simulated-nuki.js';

/**
 * A simulated Nuki Smart Lock in the demo household (Back Door): the control lines of
 * docs/design.md §4b–§4c and §6 on it. A tap names one of the lock's own authorizations; a keypad
 * entry is judged by the lock against the codes it holds, on its own clock.
 */
export class NukiDemoLock extends SimulatedNuki implements DemoDevice {
  operate(operation: DemoOperation, context: DemoOperationContext): Promise<DemoOperationResult> {
    return Promise.resolve(this.act(operation, context));
  }

  private act(operation: DemoOperation, context: DemoOperationContext): DemoOperationResult {
    switch (operation.op) {
      case 'keypad_codes':
        if (!this.hasKeypad) return { ok: false, error: 'this lock has no keypad' };
        return { ok: true, observe: false, codes: this.keypadCodes().map(demoKeypadCode) };
      case 'keypad_vendor_code':
        if (!this.hasKeypad) return { ok: false, error: 'this lock has no keypad' };
        try {
          this.addVendorCode(operation.code);
        } catch (error) {
          return { ok: false, error: describeError(error) };
        }
        return { ok: true, observe: false };
      case 'keypad': {
        if (!this.hasKeypad) return { ok: false, error: 'this lock has no keypad' };
        if (this.bolt === 'jammed') return { ok: false, error: JAMMED_ERROR };
        // The lock judges the code against the codes it stores, on its own clock. A refused code
        // is in its log too (a `keypad_refused` event): answered once the service has read it.
        if (this.typeCode(operation.code, operation.action) === 'refused') return { ok: true, observe: true, result: 'refused' };
        return { ok: true, observe: true, result: operation.action === 'lock' ? 'locked' : 'unlocked' };
      }
      case 'lock_clock':
        this.setClockOffset(operation.offsetS);
        return { ok: true, observe: false };
      case 'tap': {
        if (!('authorization' in operation)) return { ok: false, error: 'this lock is a Nuki: its taps name an "authorization" (e.g. "Olivia\'s iPhone")' };
        if (operation.authorization === context.gatewayUser) {
          return { ok: false, error: `"${context.gatewayUser}" is the gateway's own authorization: send a command (POST /locks/{id}/commands) instead` };
        }
        if (this.bolt === 'jammed') return { ok: false, error: JAMMED_ERROR };
        // docs/design.md §4b: any name other than the linked one is an unlinked authorization, so a
        // name the lock does not know yet is a phone paired with it in the Nuki app (docs/commands.md).
        try {
          this.addAuthorization(operation.authorization);
        } catch (error) {
          return { ok: false, error: `the lock cannot add the authorization "${operation.authorization}": ${describeError(error)}` };
        }
        this.tap(operation.authorization, operation.action);
        return { ok: true, observe: true };
      }
      case 'manual':
        this.manualTurn(operation.bolt);
        return { ok: true, observe: true };
      case 'battery':
        this.setBattery(operation.level * 100);
        return { ok: true, observe: true };
      case 'jam':
        this.jamNextMove();
        return { ok: true, observe: false };
      case 'ring':
        return { ok: false, error: 'only a Nuki Opener rings (this lock has no intercom)' };
    }
  }
}

/** A keypad code as the `keypad_codes` answer shows it (docs/design.md §4c). */
function demoKeypadCode(code: NukiKeypadCode): DemoKeypadCode {
  const window = windowOfKeypadLimits(code.limits);
  return {
    code: String(code.code),
    enabled: code.enabled,
    allowed_from: window.allowedFrom === null ? null : new Date(window.allowedFrom).toISOString(),
    allowed_until: window.allowedUntil === null ? null : new Date(window.allowedUntil).toISOString(),
    weekdays: window.weekdays,
    from_time: window.fromTime,
    until_time: window.untilTime,
  };
}
