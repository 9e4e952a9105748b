import { toManufacturer, toModel, toSerialNumber } from '../lock-port/lock-identity.js';
import type { DoorState } from '../domain/lock-vocabulary.js';
import type { API, Characteristic, CharacteristicValue, PlatformAccessory, Service, WithUUID } from 'homebridge';
import type { Logger } from '../logger.js';
import type { LockCommandType } from '../domain/lock-command-type.js';
import { bindCharacteristic, type CharacteristicBinding } from './characteristic-binding.js';
import { describeError } from '../domain/errors.js';
import type { CommandResult, PortLock, PortUser, LockChange, LockPort } from '../lock-port/lock-port.js';
import {
  LockCurrentStateValue,
  LockLastKnownActionValue,
  parseLockTargetState,
  toBatteryValues,
  toBoltTarget,
  toFirmwareRevision,
  toLockCurrentState,
  toLockLastKnownAction,
  toLockTargetState,
  toContactSensor,
  toStatusFault,
  LockTargetStateValue,
  StatusFaultValue,
  type StatusLowBatteryValue,
} from './lock-state-mapping.js';

/** What Homebridge stores with each cached lock accessory. */
export interface LockContext {
  /** The service's lock id; the accessory UUID is `api.hap.uuid.generate(lockId)`. */
  lockId: string;
}

/** A lock accessory as Homebridge holds it. */
export type LockPlatformAccessory = PlatformAccessory<LockContext>;

/** Settings shared by every lock accessory (from the `homekit` config block). */
export interface LockAccessorySettings {
  /** StatusLowBattery turns LOW strictly below this battery level (0..1). */
  lowBatteryThreshold: number;
  /**
   * The user a HomeKit command on this lock acts as (docs/design.md §5: the configured HomeKit user,
   * default the lock's owner); null when the configured user does not exist (the command is refused).
   */
  actingUserId: (lock: PortLock) => string | null;
  /** Users with an arrival trigger (a stateless switch on every lock). */
  arrivalUsers: readonly PortUser[];
  /**
   * docs/design.md §4d, config `homekit.unlatch`, for locks that can unlatch: `off` (default),
   * `separate` (a second lock service "Open <lock>" whose unlock unlatches) or `on_unlock` (every
   * HomeKit unlock unlatches).
   */
  unlatch?: UnlatchMode;
}

/** The values of config `homekit.unlatch`. */
export const UNLATCH_MODES = ['off', 'separate', 'on_unlock'] as const;
export type UnlatchMode = (typeof UNLATCH_MODES)[number];

/** Subtype of the "Open <lock>" lock service (`homekit.unlatch: "separate"`). */
const UNLATCH_SUBTYPE = 'unlatch';
/** Subtypes of the Opener's mode switches. */
const RING_TO_OPEN_SUBTYPE = 'ring-to-open';
const CONTINUOUS_MODE_SUBTYPE = 'continuous-mode';

/** The "Open <lock>" service's name. */
export function unlatchServiceName(lockName: string): string {
  return `Open ${lockName.trim()}`;
}

/** Version of the Lock Management service we implement (HAP: "1.0"). */
const LOCK_MANAGEMENT_VERSION = '1.0';
/** Subtype prefix of arrival switches; the suffix is the user id. */
const ARRIVAL_SUBTYPE_PREFIX = 'arrival-';

/**
 * One lock in HomeKit: AccessoryInformation, LockMechanism (+ StatusFault), Battery,
 * LockManagement and the arrival switches. State lives in memory and is pushed through
 * {@link CharacteristicBinding}s; commands go to the port and their outcomes come back as values.
 */
export class LockAccessory {
  private lock: PortLock;
  private readonly currentState: CharacteristicBinding<LockCurrentStateValue>;
  private readonly targetState: CharacteristicBinding<LockTargetStateValue>;
  private readonly fault: CharacteristicBinding<StatusFaultValue>;
  private readonly batteryLevel: CharacteristicBinding<number>;
  private readonly lowBattery: CharacteristicBinding<StatusLowBatteryValue>;
  private readonly lastKnownAction: CharacteristicBinding<LockLastKnownActionValue>;
  private readonly arrivalSwitches = new Map<string, Service>();
  /** The door sensor (locks that have one); kept from the cache until the lock reports its door again. */
  private contactSensor: { service: Service; state: CharacteristicBinding<number>; fault: CharacteristicBinding<StatusFaultValue> } | undefined;
  private serviceLabel: Service | undefined;
  /** `homekit.unlatch: "separate"`: the second lock service whose unlock unlatches. */
  private unlatchMechanism: { service: Service; current: CharacteristicBinding<LockCurrentStateValue>; target: CharacteristicBinding<LockTargetStateValue> } | undefined;
  /** A Nuki Opener (docs/design.md §4d): its doorbell and its mode switches. */
  private opener: { doorbell: Service; ringToOpen: { service: Service; on: CharacteristicBinding<boolean> }; continuousMode: { service: Service; on: CharacteristicBinding<boolean> } } | undefined;
  private disposed = false;

  constructor(
    private readonly api: API,
    readonly accessory: LockPlatformAccessory,
    lock: PortLock,
    private readonly port: LockPort,
    private readonly logger: Logger,
    private readonly settings: LockAccessorySettings,
    /** Restored from Homebridge's cache: values HomeKit last saw are better than defaults. */
    fromCache = false,
  ) {
    this.lock = { ...lock };
    const { Characteristic, Service: Services } = api.hap;
    const name = lock.name;
    const cached = (service: Service, type: WithUUID<new () => Characteristic>): number | undefined => (fromCache ? cachedNumber(service, type) : undefined);

    this.updateInformation();

    const mechanism = this.service(Services.LockMechanism, name);
    mechanism.setPrimaryService(true);
    // StatusFault is not in LockMechanism's optional list; declaring it keeps HAP-NodeJS quiet.
    if (!mechanism.testCharacteristic(Characteristic.StatusFault)) mechanism.addOptionalCharacteristic(Characteristic.StatusFault);
    this.currentState = bindCharacteristic(mechanism, Characteristic.LockCurrentState, {
      initial: toLockCurrentState(lock.bolt, lock.moving),
      label: `${name} LockCurrentState`,
      logger,
    });
    this.targetState = bindCharacteristic<LockTargetStateValue>(mechanism, Characteristic.LockTargetState, {
      initial: toLockTargetState(lock.bolt) ?? parseLockTargetState(cached(mechanism, Characteristic.LockTargetState) ?? null) ?? LockTargetStateValue.SECURED,
      label: `${name} LockTargetState`,
      logger,
      onWrite: (value, previous) => {
        this.onTargetWritten(value, previous);
      },
    });
    this.fault = bindCharacteristic(mechanism, Characteristic.StatusFault, {
      initial: toStatusFault(lock.online),
      label: `${name} StatusFault`,
      logger,
    });

    const battery = this.service(Services.Battery, `${name} Battery`);
    const batteryValues = toBatteryValues(lock.batteryLevel, settings.lowBatteryThreshold);
    this.batteryLevel = bindCharacteristic(battery, Characteristic.BatteryLevel, {
      initial: batteryValues.level ?? cached(battery, Characteristic.BatteryLevel) ?? 0,
      label: `${name} BatteryLevel`,
      logger,
    });
    this.lowBattery = bindCharacteristic(battery, Characteristic.StatusLowBattery, {
      initial: batteryValues.low,
      label: `${name} StatusLowBattery`,
      logger,
    });
    bindCharacteristic(battery, Characteristic.ChargingState, {
      initial: Characteristic.ChargingState.NOT_CHARGEABLE,
      label: `${name} ChargingState`,
      logger,
    });

    const management = this.service(Services.LockManagement, `${name} Management`);
    // Lock Control Point carries vendor TLV commands; we offer none, so writes are accepted and ignored.
    management.getCharacteristic(Characteristic.LockControlPoint).onSet((value: CharacteristicValue) => {
      logger.debug(`${name}: ignored a LockControlPoint write (${typeof value === 'string' ? value.length : 0} base64 characters)`);
    });
    bindCharacteristic(management, Characteristic.Version, { initial: LOCK_MANAGEMENT_VERSION, label: `${name} Version`, logger });
    this.lastKnownAction = bindCharacteristic(management, Characteristic.LockLastKnownAction, {
      initial:
        toLockLastKnownAction(lock.lastActivitySource, lock.bolt) ??
        (cached(management, Characteristic.LockLastKnownAction) as LockLastKnownActionValue | undefined) ??
        LockLastKnownActionValue.SECURED_PHYSICALLY,
      label: `${name} LockLastKnownAction`,
      logger,
    });

    if (lock.commands.includes('unlatch') && settings.unlatch === 'separate') this.setUpUnlatchMechanism();
    if (lock.commands.includes('ring_to_open_on') && lock.commands.includes('continuous_mode_on')) this.setUpOpener();
    this.setUpArrivalSwitches();
    // A cached door sensor stays (automations refer to it) until the lock reports its door again.
    const cachedSensor = this.accessory.services.find((candidate) => candidate.UUID === Services.ContactSensor.UUID && candidate.subtype === undefined);
    if (lock.door !== null || cachedSensor !== undefined) this.showDoor(lock.door);
    this.pruneServices([
      mechanism,
      battery,
      management,
      ...(this.serviceLabel ? [this.serviceLabel] : []),
      ...this.arrivalSwitches.values(),
      ...(this.contactSensor ? [this.contactSensor.service] : []),
      ...(this.unlatchMechanism ? [this.unlatchMechanism.service] : []),
      ...(this.opener ? [this.opener.doorbell, this.opener.ringToOpen.service, this.opener.continuousMode.service] : []),
    ]);
  }

  /** The lock id this accessory shows. */
  get lockId(): string {
    return this.lock.id;
  }

  /** Applies a change of this lock; values that did not change are not pushed again. */
  apply(change: LockChange): void {
    switch (change.kind) {
      case 'bolt':
        this.lock.bolt = change.bolt;
        this.lock.moving = false;
        if (change.source !== null) this.lock.lastActivitySource = change.source;
        this.showBolt(change.source);
        return;
      case 'moving':
        this.lock.moving = change.moving;
        this.currentState.push(toLockCurrentState(this.lock.bolt, this.lock.moving));
        return;
      case 'battery':
        this.lock.batteryLevel = change.level;
        this.showBattery();
        return;
      case 'connectivity':
        this.lock.online = change.online;
        this.fault.push(toStatusFault(change.online));
        return;
      case 'device_information':
        this.lock.deviceInformation = change.deviceInformation;
        this.lock.serialNumber = change.serialNumber;
        this.updateInformation();
        return;
      case 'door':
        this.lock.door = change.door;
        this.showDoor(change.door);
        return;
      case 'tap':
        if (change.action === 'unlock') this.fireArrival(change.userId);
        return;
      case 'modes':
        this.lock.modes = { ...change.modes };
        this.showModes();
        return;
      case 'ring':
        this.ringDoorbell();
        return;
      case 'event':
      case 'locks_changed':
        return;
    }
  }

  /** Re-reads everything from a fresh snapshot (after a restart of the service or a config change). */
  refresh(lock: PortLock): void {
    this.lock = { ...lock };
    this.updateInformation();
    this.showBolt(lock.lastActivitySource);
    this.showBattery();
    this.fault.push(toStatusFault(lock.online));
    if (lock.door !== null) this.showDoor(lock.door);
    this.showModes();
  }

  /** Stops applying command outcomes (the accessory was removed or the platform is stopping). */
  dispose(): void {
    this.disposed = true;
  }

  /** Bolt moved for any reason: current and target follow (docs/design.md §5), and the last action. */
  private showBolt(source: PortLock['lastActivitySource']): void {
    this.currentState.push(toLockCurrentState(this.lock.bolt, this.lock.moving));
    const target = toLockTargetState(this.lock.bolt);
    if (target !== null) this.targetState.push(target);
    const action = toLockLastKnownAction(source, this.lock.bolt);
    if (action !== null) this.lastKnownAction.push(action);
    if (this.unlatchMechanism !== undefined) {
      this.unlatchMechanism.current.push(toLockCurrentState(this.lock.bolt, this.lock.moving));
      if (target !== null) this.unlatchMechanism.target.push(target);
    }
  }

  /**
   * `homekit.unlatch: "separate"` (docs/design.md §4d): a second LockMechanism "Open <lock>" on a
   * lock that can unlatch. It shows the same bolt; its unlock unlatches (the door swings open), its
   * lock locks.
   */
  private setUpUnlatchMechanism(): void {
    const { Characteristic, Service: Services } = this.api.hap;
    const name = unlatchServiceName(this.lock.name);
    const service = this.subService(Services.LockMechanism, name, UNLATCH_SUBTYPE);
    const current = bindCharacteristic(service, Characteristic.LockCurrentState, {
      initial: toLockCurrentState(this.lock.bolt, this.lock.moving),
      label: `${name} LockCurrentState`,
      logger: this.logger,
    });
    const target = bindCharacteristic<LockTargetStateValue>(service, Characteristic.LockTargetState, {
      initial: toLockTargetState(this.lock.bolt) ?? LockTargetStateValue.SECURED,
      label: `${name} LockTargetState`,
      logger: this.logger,
      onWrite: (value, previous) => {
        const parsed = parseLockTargetState(value);
        this.runFromHomeKit(parsed === null ? null : parsed === LockTargetStateValue.SECURED ? 'lock' : 'unlatch', previous, (restored) => {
          target.push(restored);
        });
      },
    });
    this.unlatchMechanism = { service, current, target };
  }

  /**
   * A Nuki Opener (docs/design.md §4d): a Doorbell that is pressed on every ring (the Home app
   * notifies), and switches for Ring to Open and Continuous Mode that run the mode commands.
   */
  private setUpOpener(): void {
    const { Characteristic, Service: Services } = this.api.hap;
    const name = this.lock.name;
    const doorbell = this.service(Services.Doorbell, `${name} Doorbell`);
    doorbell.getCharacteristic(Characteristic.ProgrammableSwitchEvent).setProps({ validValues: [Characteristic.ProgrammableSwitchEvent.SINGLE_PRESS] });
    const modeSwitch = (label: string, subtype: string, on: () => boolean, commands: readonly [LockCommandType, LockCommandType]): { service: Service; on: CharacteristicBinding<boolean> } => {
      const switchName = `${name} ${label}`;
      const service = this.subService(Services.Switch, switchName, subtype);
      const binding: CharacteristicBinding<boolean> = bindCharacteristic<boolean>(service, Characteristic.On, {
        initial: on(),
        label: `${switchName} On`,
        logger: this.logger,
        onWrite: (value, previous) => {
          this.runFromHomeKit(value === true || value === 1 ? commands[0] : commands[1], previous, (restored) => {
            binding.push(restored);
          });
        },
      });
      return { service, on: binding };
    };
    this.opener = {
      doorbell,
      ringToOpen: modeSwitch('Ring to Open', RING_TO_OPEN_SUBTYPE, () => this.lock.modes?.ringToOpen ?? false, ['ring_to_open_on', 'ring_to_open_off']),
      continuousMode: modeSwitch('Continuous Mode', CONTINUOUS_MODE_SUBTYPE, () => this.lock.modes?.continuousMode ?? false, ['continuous_mode_on', 'continuous_mode_off']),
    };
  }

  private showModes(): void {
    if (this.opener === undefined || this.lock.modes === null) return;
    this.opener.ringToOpen.on.push(this.lock.modes.ringToOpen);
    this.opener.continuousMode.on.push(this.lock.modes.continuousMode);
  }

  private ringDoorbell(): void {
    if (this.opener === undefined) return;
    const { Characteristic } = this.api.hap;
    this.logger.info(`${this.lock.name}: someone rang`);
    // Every ring is an event, even when the value repeats: sendEventNotification, not updateValue.
    this.opener.doorbell.getCharacteristic(Characteristic.ProgrammableSwitchEvent).sendEventNotification(Characteristic.ProgrammableSwitchEvent.SINGLE_PRESS);
  }

  /**
   * A write on a control other than the main lock service (the "Open" service, a mode switch): run
   * `type` as the HomeKit user; on a refusal or failure put the control back with `restore`. A
   * completed command's state arrives as changes of the lock (bolt, modes).
   */
  private runFromHomeKit<T>(type: LockCommandType | null, previous: T, restore: (value: T) => void): void {
    const userId = this.settings.actingUserId(this.lock);
    if (type === null || userId === null) {
      this.logger.warn(`${this.lock.name}: HomeKit command refused: ${type === null ? 'not a value this control takes' : 'the configured HomeKit user (homekit.user_email) does not exist'}`);
      this.afterWrite(() => {
        restore(previous);
      });
      return;
    }
    this.logger.info(`${this.lock.name}: ${type} from HomeKit`);
    this.port
      .requestCommand(this.lock.id, type, userId)
      .catch((error: unknown): CommandResult => {
        this.logger.error(`${this.lock.name}: command failed unexpectedly: ${describeError(error)}`);
        return { status: 'rejected', reason: 'unavailable' };
      })
      .then((result) => {
        this.afterWrite(() => {
          if (result.status === 'completed') {
            this.lock.bolt = result.bolt;
            this.lock.moving = false;
            this.showBolt('remote');
            return;
          }
          this.logger.warn(`${this.lock.name}: HomeKit ${type} ${result.status === 'failed' ? `failed: ${result.reason}` : `refused: ${result.reason}`}`);
          restore(previous);
        });
      })
      .catch((error: unknown) => {
        this.logger.error(`${this.lock.name}: could not show a command outcome: ${describeError(error)}`);
      });
  }

  /** The door sensor: a ContactSensor service on this accessory, created at the first reading. */
  private showDoor(door: DoorState | null): void {
    const { Characteristic, Service: Services } = this.api.hap;
    if (this.contactSensor === undefined) {
      const service = this.service(Services.ContactSensor, contactSensorName(this.lock.name));
      if (!service.testCharacteristic(Characteristic.StatusFault)) service.addOptionalCharacteristic(Characteristic.StatusFault);
      const initial = door === null ? null : toContactSensor(door);
      this.contactSensor = {
        service,
        state: bindCharacteristic(service, Characteristic.ContactSensorState, {
          initial: initial?.state ?? cachedNumber(service, Characteristic.ContactSensorState) ?? Characteristic.ContactSensorState.CONTACT_DETECTED,
          label: `${this.lock.name} ContactSensorState`,
          logger: this.logger,
        }),
        fault: bindCharacteristic(service, Characteristic.StatusFault, {
          initial: initial?.fault ?? StatusFaultValue.NO_FAULT,
          label: `${this.lock.name} door StatusFault`,
          logger: this.logger,
        }),
      };
      return;
    }
    if (door === null) return;
    const values = toContactSensor(door);
    if (values.state !== null) this.contactSensor.state.push(values.state);
    this.contactSensor.fault.push(values.fault);
  }

  private showBattery(): void {
    const values = toBatteryValues(this.lock.batteryLevel, this.settings.lowBatteryThreshold);
    if (values.level !== null) this.batteryLevel.push(values.level);
    this.lowBattery.push(values.low);
  }

  /** A controller wrote LockTargetState: queue the command and return (outcome arrives later). */
  private onTargetWritten(value: CharacteristicValue, previous: LockTargetStateValue): void {
    const target = parseLockTargetState(value);
    if (target === null) {
      this.logger.warn(`${this.lock.name}: ignored LockTargetState ${JSON.stringify(value)} from HomeKit`);
      this.afterWrite(() => {
        this.restoreTarget(previous);
      });
      return;
    }
    const userId = this.settings.actingUserId(this.lock);
    const bolt = toBoltTarget(target);
    if (userId === null) {
      this.logger.warn(`${this.lock.name}: HomeKit command refused: the configured HomeKit user (homekit.user_email) does not exist`);
      this.afterWrite(() => {
        this.restoreTarget(previous);
      });
      return;
    }
    // docs/design.md §4d, `homekit.unlatch: "on_unlock"`: every HomeKit unlock of a lock that can unlatch unlatches.
    const unlatch = bolt === 'unlocked' && this.settings.unlatch === 'on_unlock' && this.lock.commands.includes('unlatch');
    this.logger.info(`${this.lock.name}: ${bolt === 'locked' ? 'locking' : unlatch ? 'unlatching' : 'unlocking'} from HomeKit`);
    this.port
      .requestCommand(this.lock.id, bolt === 'locked' ? 'lock' : unlatch ? 'unlatch' : 'unlock', userId)
      .catch((error: unknown): CommandResult => {
        // The port promises never to reject; if it does, the command is lost, not Homebridge.
        this.logger.error(`${this.lock.name}: command failed unexpectedly: ${describeError(error)}`);
        return { status: 'rejected', reason: 'unavailable' };
      })
      .then((result) => {
        this.afterWrite(() => {
          this.showOutcome(bolt, result, previous);
        });
      })
      .catch((error: unknown) => {
        this.logger.error(`${this.lock.name}: could not show a command outcome: ${describeError(error)}`);
      });
  }

  /**
   * Runs after HAP-NodeJS has stored the written value (it does so after our write handler
   * returns), so a quick outcome is not overwritten by the write it answers.
   */
  private afterWrite(work: () => void): void {
    setImmediate(() => {
      if (this.disposed) return;
      try {
        work();
      } catch (error) {
        this.logger.error(`${this.lock.name}: ${describeError(error)}`);
      }
    });
  }

  private showOutcome(requested: 'locked' | 'unlocked', result: CommandResult, previousTarget: LockTargetStateValue): void {
    const verb = requested === 'locked' ? 'lock' : 'unlock';
    switch (result.status) {
      case 'completed':
        this.logger.info(`${this.lock.name}: ${requested} from HomeKit`);
        this.lock.bolt = result.bolt;
        this.lock.moving = false;
        this.showBolt('remote');
        return;
      case 'failed':
        this.logger.warn(`${this.lock.name}: HomeKit ${verb} command failed: ${result.reason}`);
        if (result.reason === 'jammed') {
          this.lock.bolt = 'jammed';
          this.lock.moving = false;
          this.currentState.push(LockCurrentStateValue.JAMMED);
        }
        this.restoreTarget(previousTarget);
        return;
      case 'rejected':
        this.logger.warn(`${this.lock.name}: HomeKit ${verb} command refused: ${result.reason}`);
        this.restoreTarget(previousTarget);
        return;
    }
  }

  /**
   * After a refused or failed write: target back to the current bolt, so the Home app does not
   * stay on "Unlocking…"; when the bolt is not known (unknown, jammed), back to the target as it
   * was before the write.
   */
  private restoreTarget(previous: LockTargetStateValue): void {
    this.targetState.push(toLockTargetState(this.lock.bolt) ?? previous);
  }

  private fireArrival(userId: string): void {
    const service = this.arrivalSwitches.get(userId);
    if (!service) return;
    const { Characteristic } = this.api.hap;
    this.logger.info(`${this.lock.name}: arrival of ${service.displayName}`);
    // Every press is an event, even when the value repeats: sendEventNotification, not updateValue.
    service.getCharacteristic(Characteristic.ProgrammableSwitchEvent).sendEventNotification(Characteristic.ProgrammableSwitchEvent.SINGLE_PRESS);
  }

  private updateInformation(): void {
    const { Characteristic, Service: Services } = this.api.hap;
    const information = this.accessory.getService(Services.AccessoryInformation) ?? this.accessory.addService(Services.AccessoryInformation);
    const device = this.lock.deviceInformation;
    information
      .updateCharacteristic(Characteristic.Name, this.lock.name)
      .updateCharacteristic(Characteristic.Manufacturer, toManufacturer(this.lock))
      .updateCharacteristic(Characteristic.Model, toModel(this.lock))
      .updateCharacteristic(Characteristic.SerialNumber, toSerialNumber(this.lock));
    const firmware = device ? toFirmwareRevision(device.firmware) : null;
    if (firmware !== null) information.updateCharacteristic(Characteristic.FirmwareRevision, firmware);
  }

  private setUpArrivalSwitches(): void {
    const { Characteristic, Service: Services } = this.api.hap;
    if (this.settings.arrivalUsers.length === 0) return;
    // Several buttons on one accessory need a Service Label so the Home app can tell them apart.
    const label = this.service(Services.ServiceLabel, `${this.lock.name} Arrivals`);
    label.updateCharacteristic(Characteristic.ServiceLabelNamespace, Characteristic.ServiceLabelNamespace.ARABIC_NUMERALS);
    this.serviceLabel = label;
    this.settings.arrivalUsers.forEach((user, index) => {
      const name = `${this.lock.name} ${user.name} Arrived`;
      const subtype = `${ARRIVAL_SUBTYPE_PREFIX}${user.id}`;
      const service =
        this.accessory.getServiceById(Services.StatelessProgrammableSwitch, subtype) ??
        this.accessory.addService(Services.StatelessProgrammableSwitch, name, subtype);
      service.displayName = name;
      service.updateCharacteristic(Characteristic.Name, name);
      service.getCharacteristic(Characteristic.ProgrammableSwitchEvent).setProps({
        validValues: [Characteristic.ProgrammableSwitchEvent.SINGLE_PRESS],
      });
      service.updateCharacteristic(Characteristic.ServiceLabelIndex, index + 1);
      this.arrivalSwitches.set(user.id, service);
    });
  }

  /** Removes services a cached accessory still has but this version no longer offers. */
  private pruneServices(kept: readonly Service[]): void {
    const { Service: Services } = this.api.hap;
    for (const service of [...this.accessory.services]) {
      if (service.UUID === Services.AccessoryInformation.UUID) continue;
      if (kept.includes(service)) continue;
      this.logger.debug(`${this.lock.name}: removing unused service ${service.displayName}`);
      this.accessory.removeService(service);
    }
  }

  /** The service of that type with this subtype, created when missing; its Name kept up to date. */
  private subService(type: ServiceType, name: string, subtype: string): Service {
    const { Characteristic } = this.api.hap;
    // Matched by UUID and subtype here: HAP-NodeJS's getServiceById(string, …) compares the string
    // with the service's name, so a cached accessory's service was not found, adding it again
    // threw, and the accessory was left out after every restart.
    const service =
      this.accessory.services.find((candidate) => candidate.UUID === type.UUID && candidate.subtype === subtype) ??
      this.accessory.addService(new type(name, subtype));
    service.displayName = name;
    if (service.testCharacteristic(Characteristic.Name)) service.updateCharacteristic(Characteristic.Name, name);
    else service.addCharacteristic(Characteristic.Name).updateValue(name);
    return service;
  }

  /** The service of that type without subtype, created when missing. */
  private service(type: ServiceType, name: string): Service {
    const { Characteristic } = this.api.hap;
    const service =
      this.accessory.services.find((candidate) => candidate.UUID === type.UUID && candidate.subtype === undefined) ??
      this.accessory.addService(new type(name));
    // Only services created with a name carry Name; adding it elsewhere makes HAP-NodeJS warn.
    if (service.testCharacteristic(Characteristic.Name)) service.updateCharacteristic(Characteristic.Name, name);
    return service;
  }
}

/** A HAP service class whose instances take a display name (LockMechanism, Battery, …). */
type ServiceType = WithUUID<new (displayName?: string, subtype?: string) => Service>;

/** A numeric value Homebridge restored from its accessory cache, if any. */
function cachedNumber(service: Service, type: WithUUID<new () => Characteristic>): number | undefined {
  const value = service.characteristics.find((characteristic) => characteristic.UUID === type.UUID)?.value;
  return typeof value === 'number' ? value : undefined;
}

/** The door sensor's name: "Front Door Sensor" for a lock named like a door, "Garden Gate Door" otherwise. */
export function contactSensorName(lockName: string): string {
  return /\bdoor$/i.test(lockName.trim()) ? `${lockName.trim()} Sensor` : `${lockName.trim()} Door`;
}
