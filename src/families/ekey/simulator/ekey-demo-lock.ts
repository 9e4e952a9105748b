import { CREDENTIAL_REFUSED, JAMMED_ERROR, type DemoDevice, type DemoOperation, type DemoOperationContext, type DemoOperationResult } from '../../lock-family-module.js';
import { SimulatedLock } from './simulated-lock.js';

/**
 * A simulated lock of our profile in the demo household (Front Door, Garden Gate): the control
 * lines of docs/design.md §6 on it. A tap names an eKey; the lock itself checks it against the
 * allow-list the gateway keeps in sync (also out of range, with its last list).
 */
export class EKeyDemoLock extends SimulatedLock implements DemoDevice {
  async operate(operation: DemoOperation, context: DemoOperationContext): Promise<DemoOperationResult> {
    switch (operation.op) {
      case 'tap': {
        if ('authorization' in operation) return { ok: false, error: 'this lock is not a Nuki: its taps name an "ekey_id"' };
        const refusal = context.tapRefusal(operation.ekeyId);
        if (refusal !== null) return { ok: false, error: `${CREDENTIAL_REFUSED}: the lock refuses this eKey (${refusal})` };
        if (this.bolt === 'jammed') return { ok: false, error: JAMMED_ERROR };
        // An eKey change pushes the allow-list at once; wait for that write so the answer is deterministic.
        await context.credentialsSettled();
        if (this.tap(operation.ekeyId, operation.action) === 'refused') return { ok: false, error: `${CREDENTIAL_REFUSED}: the lock refuses this eKey` };
        return { ok: true, observe: true };
      }
      case 'manual':
        this.manualTurn(operation.bolt);
        return { ok: true, observe: true };
      case 'battery':
        this.setBattery(operation.level * 100);
        return { ok: true, observe: true };
      case 'jam':
        // Nothing to see until the next motorised move.
        this.jamNextMove();
        return { ok: true, observe: false };
      case 'keypad':
      case 'keypad_codes':
      case 'keypad_vendor_code':
        return { ok: false, error: 'this lock has no keypad' };
      case 'lock_clock':
        return { ok: false, error: 'only a Nuki keeps a clock of its own here' };
      case 'ring':
        return { ok: false, error: 'only a Nuki Opener rings (this lock has no intercom)' };
    }
  }
}
