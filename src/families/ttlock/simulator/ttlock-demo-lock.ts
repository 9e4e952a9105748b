import { JAMMED_ERROR, type DemoDevice, type DemoKeypadCode, type DemoOperation, type DemoOperationResult } from '../../lock-family-module.js';
import { OPEN_END, OPEN_START, type TtlockPasscode } from '../protocol/ttlock-passcodes.js';
import { formatWallClock, wallClockMs } from '../protocol/ttlock-wall-clock.js';
import { SimulatedTtlock } from './simulated-ttlock.js';
import { TtlockRefusal } from './ttlock-passcode-store.js';

/**
 * A simulated TTLock in the demo household (Side Door, docs/design.md §4f and §6): the control
 * lines on it. A keypad entry is judged by the lock against the passcodes it holds, on its own
 * clock; `keypad_codes` shows them as the lock holds them (local wall-clock times, no offset);
 * `lock_clock` sets its clock off. A TTLock's eKeys have no phone taps (a person opens it with a
 * command, its keypad or by hand), and it does not notice a turn by hand: `manual` moves the bolt
 * and the service sees nothing.
 */
export class TtlockDemoLock extends SimulatedTtlock implements DemoDevice {
  operate(operation: DemoOperation): Promise<DemoOperationResult> {
    return Promise.resolve(this.act(operation));
  }

  private act(operation: DemoOperation): DemoOperationResult {
    switch (operation.op) {
      case 'keypad': {
        if (this.isJammed) return { ok: false, error: JAMMED_ERROR };
        // The lock's log holds the entry (a refused one too): answered once the service has read it.
        return { ok: true, observe: true, result: this.typeCode(operation.code, operation.action) };
      }
      case 'keypad_codes':
        return { ok: true, observe: false, codes: this.passcodes().map(demoKeypadCode) };
      case 'keypad_vendor_code':
        try {
          this.addVendorCode(operation.code);
        } catch (error) {
          return { ok: false, error: error instanceof TtlockRefusal ? `the lock refused the code: ${error.message}` : String(error) };
        }
        return { ok: true, observe: false };
      case 'lock_clock':
        this.setClockOffset(operation.offsetS);
        return { ok: true, observe: false };
      case 'manual':
        // docs/design.md §4f: a TTLock does not notice a turn by hand; there is nothing for the service to observe.
        this.manualTurn(operation.bolt);
        return { ok: true, observe: false };
      case 'battery':
        this.setBattery(operation.level * 100);
        return { ok: true, observe: true };
      case 'jam':
        this.jamNextMove();
        return { ok: true, observe: false };
      case 'tap':
        return { ok: false, error: 'a TTLock has no phone taps: send a command (POST /locks/{id}/commands), type a door code at its keypad ("keypad") or turn it by hand ("manual")' };
      case 'ring':
        return { ok: false, error: 'only a Nuki Opener rings (this lock has no intercom)' };
    }
  }
}

/** A passcode as the `keypad_codes` answer shows it (docs/design.md §4c): the lock's local times, without an offset. */
function demoKeypadCode(passcode: TtlockPasscode): DemoKeypadCode {
  const openStart = wallClockMs(passcode.start) <= wallClockMs(OPEN_START);
  const openEnd = passcode.end === null || wallClockMs(passcode.end) >= wallClockMs(OPEN_END);
  return {
    code: passcode.code,
    enabled: true,
    allowed_from: openStart ? null : formatWallClock(passcode.start),
    allowed_until: openEnd || passcode.end === null ? null : formatWallClock(passcode.end),
    weekdays: [],
    from_time: null,
    until_time: null,
  };
}
