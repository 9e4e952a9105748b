import type { DemoDevice, DemoOperation, DemoOperationResult } from '../../lock-family-module.js';
import { SimulatedOpener } from './simulated-opener.js';

/** docs/design.md §4d: a `battery` line at or below this level sets the Opener's critical flag (all it reports). */
export const OPENER_CRITICAL_BELOW = 0.2;

/**
 * The demo's Nuki Opener (Building Door, docs/design.md §4d): `ring` rings its intercom (with Ring
 * to Open active it opens on that ring, as the real one does); `battery` sets its critical flag.
 * It has no bolt to turn, jam or tap.
 */
export class OpenerDemoLock extends SimulatedOpener implements DemoDevice {
  async operate(operation: DemoOperation): Promise<DemoOperationResult> {
    switch (operation.op) {
      case 'ring':
        await this.ring();
        await this.settled();
        return { ok: true, observe: true };
      case 'battery':
        this.setBatteryCritical(operation.level <= OPENER_CRITICAL_BELOW);
        await this.settled();
        return { ok: true, observe: true };
      case 'tap':
        return { ok: false, error: 'a Nuki Opener has no taps: ring it ("ring") or open it with a command (POST /locks/{id}/commands)' };
      case 'manual':
      case 'jam':
        return { ok: false, error: 'a Nuki Opener has no bolt to turn or jam: ring it ("ring")' };
      case 'keypad':
      case 'keypad_codes':
      case 'keypad_vendor_code':
        return { ok: false, error: 'this lock has no keypad' };
      case 'lock_clock':
        return { ok: false, error: 'only a Nuki Smart Lock keeps a clock of its own here' };
    }
  }
}
