import { encodeTtlockReply, TtlockCommand, TtlockError } from '../protocol/ttlock-commands.js';
import { TTLOCK_FACTORY_KEY } from '../protocol/ttlock-crypto.js';
import {
  challengeAnswer,
  decodeAddAdmin,
  decodeAdminKeypadCode,
  decodeBoltCommand,
  decodeCheckAdmin,
  decodeCheckUserTime,
  encodeBoltCommandReply,
  encodeDeviceInfoText,
  SCIENER,
  TtlockDeviceInfo,
  TtlockPayloadError,
} from '../protocol/ttlock-messages.js';
import { decodeLogRequest, encodeLogPage, encodeLogRecord, END_OF_LOG } from '../protocol/ttlock-operation-log.js';
import { decodePasscodeListRequest, decodePasscodeRequest, encodePasscodePage, END_OF_LIST, TtlockPasscodeType } from '../protocol/ttlock-passcodes.js';
import { decodeDate, encodeDate6, TtlockDateError, wallClockMs } from '../protocol/ttlock-wall-clock.js';
import type { SimulatedTtlock, TtlockSimulatedLink } from './simulated-ttlock.js';
import { TtlockRefusal } from './ttlock-passcode-store.js';

/** The answer to one request: its plaintext, the header command it goes out with, the key it is encrypted under. */
interface Answer {
  plaintext: Buffer;
  headerCommand?: number;
  key?: Buffer;
}

const ok = (command: number, data: Buffer = Buffer.alloc(0)): Answer => ({ plaintext: encodeTtlockReply(command, { data }) });
const refuse = (command: number, code: number): Answer => ({ plaintext: encodeTtlockReply(command, { errorCode: code }) });

/** Commands an admin must be logged in for (CHECK_ADMIN then CHECK_RANDOM on this link), unless the link is the one pairing the lock. */
const ADMIN_ONLY: ReadonlySet<number> = new Set([
  TtlockCommand.managePasscode,
  TtlockCommand.passcodeList,
  TtlockCommand.operationLog,
  TtlockCommand.calibrateTime,
  TtlockCommand.setAdminKeypadCode,
]);

/**
 * How the simulated TTLock answers one decrypted request (docs/ttlock.md): each reply is
 * `echo | 01 | data` or `echo | 00 | error code`, sent in a frame with command 0x54 — but the
 * GET_AES_KEY reply carries 0x19 — under the key the lock speaks now. Where no source says what a
 * lock answers, this lock's choice is written next to it.
 */
export function respondToTtlockRequest(lock: SimulatedTtlock, link: TtlockSimulatedLink, command: number, payload: Buffer, key: Buffer): void {
  let answer: Answer;
  try {
    answer = answerOf(lock, link, command, payload);
  } catch (error) {
    if (error instanceof TtlockRefusal) answer = refuse(command, error.code);
    // A payload it cannot read: "invalid command" (this simulator's choice; no source shows one).
    else if (error instanceof TtlockPayloadError || error instanceof TtlockDateError || error instanceof RangeError) answer = refuse(command, TtlockError.invalidCommand);
    else throw error;
  }
  lock.reply(link, answer.headerCommand ?? TtlockCommand.response, answer.plaintext, answer.key ?? key);
}

function answerOf(lock: SimulatedTtlock, link: TtlockSimulatedLink, command: number, payload: Buffer): Answer {
  const admin = lock.adminHeld;
  const battery = Buffer.from([lock.batteryPercent]);
  if (ADMIN_ONLY.has(command) && !link.loggedIn && !link.pairing) return refuse(command, admin === null ? TtlockError.noAdmin : TtlockError.notLoggedIn);
  switch (command) {
    case TtlockCommand.initialize:
      // DEF CON 34 slides 10 and 24: an unpaired lock answers with no payload, a paired one `45 01 battery`.
      return admin === null ? { plaintext: Buffer.alloc(0) } : ok(command, battery);
    case TtlockCommand.getAesKey: {
      if (admin !== null || !lock.inSettingMode) return refuse(command, TtlockError.notInSettingMode);
      if (!payload.equals(SCIENER)) return refuse(command, TtlockError.aesParseError);
      // Slide 26: the reply goes out with command 0x19 in its header, under the factory key.
      const fresh = lock.issueKey();
      return { plaintext: encodeTtlockReply(command, { data: fresh }), headerCommand: TtlockCommand.getAesKey, key: TTLOCK_FACTORY_KEY };
    }
    case TtlockCommand.addAdmin: {
      const secrets = decodeAddAdmin(payload);
      if (!lock.bindAdmin(secrets.adminPs, secrets.unlockKey)) return refuse(command, TtlockError.notInSettingMode);
      link.pairing = true;
      // The Android SDK checks that the data is "SCIENER".
      return ok(command, SCIENER);
    }
    case TtlockCommand.deviceFeatures:
      // battery | feature bits: passcodes (bit 0) and the operation log (this simulator's choice of bits).
      return ok(command, Buffer.concat([battery, Buffer.from([0, 0, 0, 0x03])]));
    case TtlockCommand.setAdminKeypadCode:
      lock.setAdminKeypadCode(decodeAdminKeypadCode(payload));
      return ok(command);
    case TtlockCommand.operateFinished:
      link.pairing = false;
      lock.finishSetup();
      return ok(command);
    case TtlockCommand.searchStatus:
      // battery | state (0 locked, 1 unlocked) | 0: ttlock-ble's captured reply `14012d0002` has this shape.
      return ok(command, Buffer.from([lock.batteryPercent, lock.bolt === 'unlocked' ? 1 : 0, 0]));
    case TtlockCommand.getLockTime:
      return ok(command, encodeDate6(lock.lockTime()));
    case TtlockCommand.calibrateTime:
      lock.setLockTime(decodeDate(payload.subarray(0, 6)));
      return ok(command, battery);
    case TtlockCommand.checkAdmin: {
      if (admin === null) return refuse(command, TtlockError.noAdmin);
      const fields = decodeCheckAdmin(payload);
      if (fields.adminPs !== admin.adminPs) return refuse(command, TtlockError.adminCheckFailed);
      return challengeFor(lock, link, command, fields.uid);
    }
    case TtlockCommand.checkUserTime: {
      if (admin === null) return refuse(command, TtlockError.noAdmin);
      const fields = decodeCheckUserTime(payload);
      // DEF CON 34 slides 55–59: the lock checks the end date only, and never the uid.
      if (wallClockMs(fields.end) <= wallClockMs(lock.lockTime())) return refuse(command, 0x0e);
      return challengeFor(lock, link, command, fields.uid);
    }
    case TtlockCommand.checkRandom: {
      const answer = payload.length >= 4 ? payload.readUInt32BE(0) : -1;
      if (admin === null || link.ps === null || answer !== challengeAnswer(link.ps, admin.unlockKey)) {
        link.ps = null;
        return refuse(command, TtlockError.noPermission);
      }
      link.ps = null;
      link.loggedIn = true;
      return ok(command, battery);
    }
    case TtlockCommand.unlock:
    case TtlockCommand.lock: {
      if (admin === null) return refuse(command, TtlockError.noAdmin);
      const { answer, unixSeconds } = decodeBoltCommand(payload);
      const expected = link.ps === null ? null : challengeAnswer(link.ps, admin.unlockKey);
      link.ps = null;
      if (answer !== expected) return refuse(command, TtlockError.noPermission);
      // A motor that cannot finish: "operation failed" (the service shows it as jammed: docs/ttlock.md).
      if (!lock.commandMove(command === TtlockCommand.unlock ? 'unlocked' : 'locked', link.uid, unixSeconds)) return refuse(command, TtlockError.operationFailed);
      return ok(command, encodeBoltCommandReply({ battery: lock.batteryPercent, uid: link.uid, uniqueId: unixSeconds, lockTime: lock.lockTime() }));
    }
    case TtlockCommand.managePasscode:
      return managePasscodes(lock, command, payload);
    case TtlockCommand.passcodeList: {
      const sequence = decodePasscodeListRequest(payload);
      const passcode = lock.passcodes()[sequence];
      // One passcode a page; the next page's sequence is the next index (a real lock's is its own).
      return ok(command, passcode === undefined ? END_OF_LIST : encodePasscodePage(sequence + 1, [passcode]));
    }
    case TtlockCommand.operationLog: {
      const record = lock.log.after(decodeLogRequest(payload));
      return ok(command, record === undefined ? END_OF_LOG : encodeLogPage(record.number, [encodeLogRecord(record)]));
    }
    case TtlockCommand.readDeviceInfo: {
      const item = payload[0];
      const text = item === TtlockDeviceInfo.modelNumber ? lock.model : item === TtlockDeviceInfo.firmwareRevision ? lock.firmware : item === TtlockDeviceInfo.hardwareRevision ? '1.0' : '';
      return ok(command, encodeDeviceInfoText(text));
    }
    default:
      return refuse(command, TtlockError.invalidCommand);
  }
}

/** A fresh single-use challenge on this link, for the uid that asked (the admin login and the user check end alike). */
function challengeFor(lock: SimulatedTtlock, link: TtlockSimulatedLink, command: number, uid: number): Answer {
  const ps = lock.challenge();
  link.ps = ps;
  link.uid = uid;
  link.loggedIn = false;
  const data = Buffer.alloc(4);
  data.writeUInt32BE(ps);
  return ok(command, data);
}

function managePasscodes(lock: SimulatedTtlock, command: number, payload: Buffer): Answer {
  const request = decodePasscodeRequest(payload);
  const store = lock.passcodeStore;
  switch (request.op) {
    case 'clear':
      store.clear();
      break;
    case 'add':
      store.add(request.passcode);
      break;
    case 'remove':
      store.remove(request.code);
      break;
    case 'modify':
      store.modify(request.code, request.type === TtlockPasscodeType.permanent ? TtlockPasscodeType.permanent : TtlockPasscodeType.period, request.start, request.end);
      break;
  }
  // `03 01 battery op` (the guide's reply shape).
  return ok(command, Buffer.from([lock.batteryPercent, payload[0] ?? 0]));
}
