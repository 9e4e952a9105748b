import type { ActivityRecord, ActivitySource, Bolt, DeviceInformation, DoorState, OpenerModes } from '../domain/lock-vocabulary.js';
import type { ReportedBolt } from './lock-driver.js';
import type { LockGatewayEvents } from './gateway-events.js';

/** Emits one gateway event (the gateway guards its listeners). */
export type GatewayEmit = <K extends keyof LockGatewayEvents>(event: K, ...payload: LockGatewayEvents[K]) => void;

/**
 * What the gateway knows about one lock, in memory: bolt, motor, battery, door, device
 * information, the last activity source and the activity high-water mark. Every change is
 * emitted once, as it happens; unchanged values emit nothing. Family-independent: drivers report
 * here through their {@link DriverContext}.
 */
export class LockObservations {
  bolt: Bolt = 'unknown';
  moving = false;
  batteryLevel: number | null = null;
  door: DoorState | null = null;
  /** An Opener's modes; null for every other lock (or until read). */
  modes: OpenerModes | null = null;
  lastActivitySource: ActivitySource | null = null;
  deviceInformation: DeviceInformation | null = null;
  /** Highest activity sequence delivered (or stored by the caller). */
  highestSequence = 0;

  constructor(
    private readonly lockId: string,
    private readonly emit: GatewayEmit,
  ) {}

  /** A bolt reading: `moving` only marks the motor; `unknown` keeps the last settled position. */
  reportBolt(reading: ReportedBolt, source: ActivitySource | null): void {
    if (reading === 'moving') {
      this.setMoving(true);
      return;
    }
    this.setMoving(false);
    if (reading === 'unknown') return;
    this.applyBolt(reading, source);
  }

  /** A settled position (also from a command's confirmation). */
  applyBolt(bolt: Bolt, source: ActivitySource | null): void {
    if (source !== null) this.lastActivitySource = source;
    if (bolt === this.bolt) return;
    this.bolt = bolt;
    this.emit('bolt', { lockId: this.lockId, bolt, source });
  }

  setMoving(moving: boolean): void {
    if (moving === this.moving) return;
    this.moving = moving;
    this.emit('moving', { lockId: this.lockId, moving });
  }

  reportBattery(level: number): void {
    if (!Number.isFinite(level)) return;
    const clamped = Math.min(1, Math.max(0, level));
    if (clamped === this.batteryLevel) return;
    this.batteryLevel = clamped;
    this.emit('battery', { lockId: this.lockId, level: clamped });
  }

  reportDoor(door: DoorState): void {
    if (door === this.door) return;
    this.door = door;
    this.emit('door', { lockId: this.lockId, door });
  }

  reportModes(modes: OpenerModes): void {
    if (this.modes !== null && this.modes.ringToOpen === modes.ringToOpen && this.modes.continuousMode === modes.continuousMode) return;
    this.modes = { ...modes };
    this.emit('modes', { lockId: this.lockId, modes: { ...modes } });
  }

  reportDeviceInformation(information: DeviceInformation): void {
    this.deviceInformation = { ...information };
    this.emit('device_information', { lockId: this.lockId, deviceInformation: { ...information } });
  }

  /** Delivers a record once: records at or below the high-water mark were delivered already. */
  reportActivity(record: ActivityRecord, backlog: boolean): void {
    if (record.sequence <= this.highestSequence) return;
    this.highestSequence = record.sequence;
    this.lastActivitySource = record.source;
    this.emit('activity', { lockId: this.lockId, record, backlog });
  }
}
