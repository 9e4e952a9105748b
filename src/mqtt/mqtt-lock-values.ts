import type { LockCommandType } from '../domain/lock-command-type.js';
import { batteryReading } from '../lock-port/lock-identity.js';
import type { CommandResult, PortLock, PortLockEvent } from '../lock-port/lock-port.js';
import type { ModeControl } from './mqtt-topics.js';

/*
 * MQTT's own values (docs/design.md §11), the way HomeKit's live in src/homekit/lock-state-mapping.ts:
 * the lock states are Home Assistant's own (its MQTT lock's defaults), so its lock entity needs no
 * `state_*` overrides; everything else is plain JSON.
 */

/** Home Assistant's lock states. `None` is its reset payload: the state is unknown. */
export type MqttLockState = 'LOCKED' | 'UNLOCKED' | 'LOCKING' | 'UNLOCKING' | 'JAMMED' | 'OPEN' | 'OPENING' | 'None';

/** What the adapter knows of a lock beyond the port: a pull of the latch under way or just done. */
export interface LatchState {
  /** An OPEN command runs. */
  opening: boolean;
  /** The last move pulled the latch and the bolt has not moved since. */
  open: boolean;
}

/**
 * A lock's state as Home Assistant shows it. A move under way is LOCKING or UNLOCKING: away from
 * where the bolt was, or toward where an MQTT command sends it; an unlatch is OPENING, then OPEN.
 */
export function lockState(lock: Pick<PortLock, 'bolt' | 'moving'>, latch: LatchState, target?: 'locked' | 'unlocked'): MqttLockState {
  if (lock.moving) {
    if (latch.opening) return 'OPENING';
    if (target !== undefined) return target === 'locked' ? 'LOCKING' : 'UNLOCKING';
    return lock.bolt === 'locked' ? 'UNLOCKING' : 'LOCKING';
  }
  switch (lock.bolt) {
    case 'locked':
      return 'LOCKED';
    case 'unlocked':
      return latch.open ? 'OPEN' : 'UNLOCKED';
    case 'jammed':
      return 'JAMMED';
    case 'unknown':
      return 'None';
  }
}

/** `online` when the lock can be reached now, else `offline`. */
export function availability(lock: Pick<PortLock, 'online'>): 'online' | 'offline' {
  return lock.online ? 'online' : 'offline';
}

/** The `event` message (docs/design.md §11): what happened, who and how. */
export interface EventMessage {
  event_type: 'locked' | 'unlocked' | 'jammed' | 'ring';
  user: string | null;
  via: 'keypad' | 'homekit' | 'app' | 'manual' | 'auto' | null;
  /** The rental stay whose door code was typed at the keypad (docs/design.md §12); only then. */
  booking?: { uid: string; summary: string };
  at: string;
}

export function eventMessage(event: PortLockEvent): EventMessage {
  return {
    event_type: event.kind,
    user: event.user?.name ?? null,
    via: event.method === 'unknown' ? null : event.method,
    ...(event.booking === null ? {} : { booking: event.booking }),
    at: new Date(event.at).toISOString(),
  };
}

/** The `attributes` JSON: battery percent and low, the door where the lock has a sensor, the last event. */
export interface AttributesMessage {
  battery: number | null;
  battery_low: boolean;
  door?: 'open' | 'closed' | null;
  last_event: EventMessage | null;
}

export function attributes(lock: Pick<PortLock, 'batteryLevel' | 'door' | 'capabilities'>, lowBatteryThreshold: number, lastEvent: EventMessage | null): AttributesMessage {
  const battery = batteryReading(lock.batteryLevel, lowBatteryThreshold);
  return {
    battery: battery.percent,
    battery_low: battery.low,
    ...(lock.capabilities.doorSensor ? { door: lock.door === 'open' || lock.door === 'closed' ? lock.door : null } : {}),
    last_event: lastEvent,
  };
}

/** An Opener mode as a switch state: `ON`, `OFF`, or `None` until the Opener reported it. */
export function modeState(lock: Pick<PortLock, 'modes'>, mode: ModeControl): 'ON' | 'OFF' | 'None' {
  if (lock.modes === null) return 'None';
  const on = mode === 'ring_to_open' ? lock.modes.ringToOpen : lock.modes.continuousMode;
  return on ? 'ON' : 'OFF';
}

/** The payloads of the lock's `set` topic (Home Assistant's defaults). */
const BOLT_COMMANDS: Readonly<Record<string, LockCommandType>> = { LOCK: 'lock', UNLOCK: 'unlock', OPEN: 'unlatch' };

/**
 * The command a `set` payload asks for: `LOCK`, `UNLOCK`, `OPEN` on the lock's topic, `ON`/`OFF` on a
 * mode's; case and surrounding blanks do not matter. Null for anything else (a bad payload).
 */
export function commandOf(control: 'bolt' | ModeControl, payload: string): LockCommandType | null {
  const word = payload.trim().toUpperCase();
  if (control === 'bolt') return BOLT_COMMANDS[word] ?? null;
  if (word !== 'ON' && word !== 'OFF') return null;
  return `${control}_${word === 'ON' ? 'on' : 'off'}`;
}

/** The `command_result` message (docs/design.md §11). A command refused before it ran has no id. */
export interface CommandResultMessage {
  command_id: string | null;
  type: LockCommandType;
  status: 'completed' | 'failed' | 'refused';
  failure_reason: string | null;
}

export function commandResult(type: LockCommandType, result: CommandResult): CommandResultMessage {
  switch (result.status) {
    case 'completed':
      return { command_id: result.commandId, type, status: 'completed', failure_reason: null };
    case 'failed':
      return { command_id: result.commandId, type, status: 'failed', failure_reason: result.reason };
    case 'rejected':
      return { command_id: null, type, status: 'refused', failure_reason: result.reason };
  }
}
