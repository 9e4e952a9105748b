/**
 * The numbers of the Nuki Smart Lock API V2.1: command identifiers (§5), error codes (§6), status
 * codes (§7) and the value tables of the command payloads. Names follow the spec; each table is a
 * const object so a value and its meaning sit side by side.
 */

/** Command identifiers (§5, the command table). */
export const NukiCommand = {
  /** Asks the lock to send the command named in the payload (plus its additional data). */
  requestData: 0x0001,
  /** A public key: the lock's (reply) or the client's (pairing step 2). */
  publicKey: 0x0003,
  /** A 32-byte nonce nK; single use. */
  challenge: 0x0004,
  /** Pairing: the client's authenticator over both public keys and the challenge. */
  authorizationAuthenticator: 0x0005,
  /** Pairing: the client's ID type, id, name and nonce, authenticated. */
  authorizationData: 0x0006,
  /** Pairing: the authorization id the lock assigned, its UUID and a nonce, authenticated. */
  authorizationId: 0x0007,
  /** Removes an authorization (the command table calls it "Remove User Authorization"). */
  removeAuthorizationEntry: 0x0008,
  /** Asks for authorization entries (needs the security PIN). */
  requestAuthorizationEntries: 0x0009,
  /** One authorization entry. */
  authorizationEntry: 0x000a,
  /** Adds an authorization by invitation. */
  authorizationDataInvite: 0x000b,
  /** The lock's state: mode, lock state, trigger, time, battery, door sensor, … */
  keyturnerStates: 0x000c,
  /** Asks the lock to unlock, lock, unlatch, … */
  lockAction: 0x000d,
  /** COMPLETE or ACCEPTED (§7). */
  status: 0x000e,
  /** The most recently executed command. */
  mostRecentCommand: 0x000f,
  /** Opening and closing counters. */
  openingsClosingsSummary: 0x0010,
  /** Battery drain, voltages and temperature of the last lock action. */
  batteryReport: 0x0011,
  /** An error code (§6) and the command it refers to. */
  errorReport: 0x0012,
  /** Writes the lock's configuration. */
  setConfig: 0x0013,
  /** Asks for the lock's configuration. */
  requestConfig: 0x0014,
  /** The lock's configuration. */
  config: 0x0015,
  /** Changes the security PIN. */
  setSecurityPin: 0x0019,
  /** Starts a calibration. */
  requestCalibration: 0x001a,
  /** Reboots the lock. */
  requestReboot: 0x001d,
  /** Pairing: the client confirms the authorization id, authenticated. */
  authorizationIdConfirmation: 0x001e,
  /** The authorization id assigned to an invitation. */
  authorizationIdInvite: 0x001f,
  /** Checks a security PIN (answered with Status COMPLETE or Error Report K_ERROR_BAD_PIN). */
  verifySecurityPin: 0x0020,
  /** Sets the lock's clock. */
  updateTime: 0x0021,
  /** Changes an authorization (the command table calls it "Update User Authorization"). */
  updateAuthorizationEntry: 0x0025,
  /** The number of authorization entries. */
  authorizationEntryCount: 0x0027,
  /** Asks for log entries (needs the security PIN). */
  requestLogEntries: 0x0031,
  /** One log entry. */
  logEntry: 0x0032,
  /** The number of log entries, sent before them when asked for. */
  logEntryCount: 0x0033,
  /** Switches logging on or off. */
  enableLogging: 0x0034,
  /** Writes the advanced configuration. */
  setAdvancedConfig: 0x0035,
  /** Asks for the advanced configuration. */
  requestAdvancedConfig: 0x0036,
  /** The advanced configuration. */
  advancedConfig: 0x0037,
  /** Adds a time control entry. */
  addTimeControlEntry: 0x0039,
  /** The id of a new time control entry. */
  timeControlEntryId: 0x003a,
  /** Removes a time control entry. */
  removeTimeControlEntry: 0x003b,
  /** Asks for the time control entries. */
  requestTimeControlEntries: 0x003c,
  /** The number of time control entries. */
  timeControlEntryCount: 0x003d,
  /** One time control entry. */
  timeControlEntry: 0x003e,
  /** Changes a time control entry. */
  updateTimeControlEntry: 0x003f,
  /** Adds a keypad code. */
  addKeypadCode: 0x0041,
  /** The id of a new keypad code. */
  keypadCodeId: 0x0042,
  /** Asks for keypad codes. */
  requestKeypadCodes: 0x0043,
  /** The number of keypad codes. */
  keypadCodeCount: 0x0044,
  /** One keypad code. */
  keypadCode: 0x0045,
  /** Changes a keypad code. */
  updateKeypadCode: 0x0046,
  /** Removes a keypad code. */
  removeKeypadCode: 0x0047,
  /** A keypad asks the lock to act. */
  keypadAction: 0x0048,
  /** Unlock or lock with nothing but a nonce (V2.1). */
  simpleLockAction: 0x0100,
} as const;

// The names exactly as the §5 command table writes them (where a section heading differs, as for
// 0x0008 and 0x0025, the table wins).
const COMMAND_NAMES: Record<keyof typeof NukiCommand, string> = {
  requestData: 'Request Data',
  publicKey: 'Public Key',
  challenge: 'Challenge',
  authorizationAuthenticator: 'Authorization Authenticator',
  authorizationData: 'Authorization Data',
  authorizationId: 'Authorization-ID',
  removeAuthorizationEntry: 'Remove User Authorization',
  requestAuthorizationEntries: 'Request Authorization Entries',
  authorizationEntry: 'Authorization Entry',
  authorizationDataInvite: 'Authorization Data (Invite)',
  keyturnerStates: 'Keyturner States',
  lockAction: 'Lock Action',
  status: 'Status',
  mostRecentCommand: 'Most Recent Command',
  openingsClosingsSummary: 'Openings Closings Summary',
  batteryReport: 'Battery Report',
  errorReport: 'Error Report',
  setConfig: 'Set Config',
  requestConfig: 'Request Config',
  config: 'Config',
  setSecurityPin: 'Set Security PIN',
  requestCalibration: 'Request Calibration',
  requestReboot: 'Request Reboot',
  authorizationIdConfirmation: 'Authorization-ID Confirmation',
  authorizationIdInvite: 'Authorization-ID (Invite)',
  verifySecurityPin: 'Verify Security PIN',
  updateTime: 'Update Time',
  updateAuthorizationEntry: 'Update User Authorization',
  authorizationEntryCount: 'Authorization Entry Count',
  requestLogEntries: 'Request Log Entries',
  logEntry: 'Log Entry',
  logEntryCount: 'Log Entry Count',
  enableLogging: 'Enable Logging',
  setAdvancedConfig: 'Set Advanced Config',
  requestAdvancedConfig: 'Request Advanced Config',
  advancedConfig: 'Advanced Config',
  addTimeControlEntry: 'Add Time Control Entry',
  timeControlEntryId: 'Time Control Entry ID',
  removeTimeControlEntry: 'Remove Time Control Entry',
  requestTimeControlEntries: 'Request Time Control Entries',
  timeControlEntryCount: 'Time Control Entry Count',
  timeControlEntry: 'Time Control Entry',
  updateTimeControlEntry: 'Update Time Control Entry',
  addKeypadCode: 'Add Keypad Code',
  keypadCodeId: 'Keypad Code ID',
  requestKeypadCodes: 'Request Keypad Codes',
  keypadCodeCount: 'Keypad Code Count',
  keypadCode: 'Keypad Code',
  updateKeypadCode: 'Update Keypad Code',
  removeKeypadCode: 'Remove Keypad Code',
  keypadAction: 'Keypad Action',
  simpleLockAction: 'Simple Lock Action',
};

const NAME_BY_ID: ReadonlyMap<number, string> = new Map(
  (Object.keys(NukiCommand) as (keyof typeof NukiCommand)[]).map((key) => [NukiCommand[key], COMMAND_NAMES[key]]),
);

/**
 * The spec's name of a command, exactly as the §5 command table writes it, or `"unknown"`.
 *
 * @example nukiCommandName(0x000c) // "Keyturner States"
 */
export function nukiCommandName(id: number): string {
  return NAME_BY_ID.get(id) ?? 'unknown';
}

/** Error codes (§6), as unsigned byte values. Error Report carries them as sint8: see {@link nukiErrorName}. */
export const NukiErrorCode = {
  /** CRC of the received command is invalid. */
  ERROR_BAD_CRC: 0xfd,
  /** Length of the received command payload does not match the expected length. */
  ERROR_BAD_LENGTH: 0xfe,
  /** No other error code matches. */
  ERROR_UNKNOWN: 0xff,
  /** Public key requested, but the lock is not in pairing mode. */
  P_ERROR_NOT_PAIRING: 0x10,
  /** The received authenticator does not match the lock's own. */
  P_ERROR_BAD_AUTHENTICATOR: 0x11,
  /** A pairing parameter is outside its valid range. */
  P_ERROR_BAD_PARAMETER: 0x12,
  /** The maximum number of users has been reached. */
  P_ERROR_MAX_USER: 0x13,
  /** Invalid authorization id, or the payload could not be decrypted with its shared key. */
  K_ERROR_NOT_AUTHORIZED: 0x20,
  /** The security PIN does not match. */
  K_ERROR_BAD_PIN: 0x21,
  /** The nonce is not the last challenge of this authorization, or was used before. */
  K_ERROR_BAD_NONCE: 0x22,
  /** A parameter is outside its valid range. */
  K_ERROR_BAD_PARAMETER: 0x23,
  /** The authorization id to delete does not exist. */
  K_ERROR_INVALID_AUTH_ID: 0x24,
  /** The authorization is disabled. */
  K_ERROR_DISABLED: 0x25,
  /** Forwarded by a Nuki Bridge, but the authorization has no remote access. */
  K_ERROR_REMOTE_NOT_ALLOWED: 0x26,
  /** The authorization has no access at the current time. */
  K_ERROR_TIME_NOT_ALLOWED: 0x27,
  /** An invalid PIN has been provided too often. */
  K_ERROR_TOO_MANY_PIN_ATTEMPTS: 0x28,
  /** No more entries can be stored. */
  K_ERROR_TOO_MANY_ENTRIES: 0x29,
  /** The keypad code to add already exists. */
  K_ERROR_CODE_ALREADY_EXISTS: 0x2a,
  /** An entered keypad code is invalid. */
  K_ERROR_CODE_INVALID: 0x2b,
  /** An invalid PIN has been provided multiple times (first lockout). */
  K_ERROR_CODE_INVALID_TIMEOUT_1: 0x2c,
  /** An invalid PIN has been provided multiple times (second lockout). */
  K_ERROR_CODE_INVALID_TIMEOUT_2: 0x2d,
  /** An invalid PIN has been provided multiple times (third lockout). */
  K_ERROR_CODE_INVALID_TIMEOUT_3: 0x2e,
  /** Auto unlock refused: a lock action was executed a short time ago. */
  K_ERROR_AUTO_UNLOCK_TOO_RECENT: 0x40,
  /** Unlock via a Nuki Bridge refused: the lock is unsure of its position. */
  K_ERROR_POSITION_UNKNOWN: 0x41,
  /** The motor blocked. */
  K_ERROR_MOTOR_BLOCKED: 0x42,
  /** A clutch problem during motor movement. */
  K_ERROR_CLUTCH_FAILURE: 0x43,
  /** The motor moved for too long without blocking. */
  K_ERROR_MOTOR_TIMEOUT: 0x44,
  /** A lock action is already in progress. */
  K_ERROR_BUSY: 0x45,
  /** The user cancelled the movement by pressing the button. */
  K_ERROR_CANCELED: 0x46,
  /** The lock has not been calibrated yet. */
  K_ERROR_NOT_CALIBRATED: 0x47,
  /** Calibration: the position database is full. */
  K_ERROR_MOTOR_POSITION_LIMIT: 0x48,
  /** The motor blocked because of low voltage. */
  K_ERROR_MOTOR_LOW_VOLTAGE: 0x49,
  /** The power drain during motor movement was zero. */
  K_ERROR_MOTOR_POWER_FAILURE: 0x4a,
  /** The power drain during clutch movement was zero. */
  K_ERROR_CLUTCH_POWER_FAILURE: 0x4b,
  /** Calibration refused: the battery voltage is too low. */
  K_ERROR_VOLTAGE_TOO_LOW: 0x4c,
  /** Motor actions refused: a firmware update is mandatory. */
  K_ERROR_FIRMWARE_UPDATE_NEEDED: 0x4d,
} as const;

const ERROR_NAME_BY_CODE: ReadonlyMap<number, string> = new Map(Object.entries(NukiErrorCode).map(([name, code]) => [code, name]));

/**
 * The spec's name of an error code, or `"unknown"`. Accepts the byte read either way: Error Report
 * declares the code sint8, so ERROR_BAD_CRC arrives as −3 or as 0xFD depending on the reader.
 *
 * @example nukiErrorName(-3) === nukiErrorName(0xfd) // both "ERROR_BAD_CRC"
 */
export function nukiErrorName(code: number): string {
  if (!Number.isInteger(code) || code < -128 || code > 0xff) return 'unknown';
  return ERROR_NAME_BY_CODE.get(code & 0xff) ?? 'unknown';
}

/** Status codes (§7), the payload of Status. */
export const NukiStatusCode = {
  /** The command completed successfully. */
  COMPLETE: 0x00,
  /** The command was accepted; its completion is signalled later. */
  ACCEPTED: 0x01,
} as const;

/** Nuki State, the operating mode of the lock (Keyturner States). */
export const NukiState = {
  /** Not set up yet. */
  uninitialized: 0x00,
  /** Accepting a new pairing (button held 5 s). */
  pairingMode: 0x01,
  /** Normal operation. */
  doorMode: 0x02,
  /** Maintenance. */
  maintenanceMode: 0x04,
} as const;

/** Lock State, the state of the locking mechanism (Keyturner States). */
export const NukiLockState = {
  /** Not calibrated. */
  uncalibrated: 0x00,
  /** Locked. */
  locked: 0x01,
  /** Moving towards unlocked. */
  unlocking: 0x02,
  /** Unlocked. */
  unlocked: 0x03,
  /** Moving towards locked. */
  locking: 0x04,
  /** Unlatched (latch pulled). */
  unlatched: 0x05,
  /** Unlocked, lock 'n' go active. */
  unlockedLockNGo: 0x06,
  /** Moving towards unlatched. */
  unlatching: 0x07,
  /** Calibrating. */
  calibration: 0xfc,
  /** Boot run. */
  bootRun: 0xfd,
  /** The motor blocked. */
  motorBlocked: 0xfe,
  /** Undefined. */
  undefined: 0xff,
} as const;

/** Trigger, what caused a state change (Keyturner States, Log Entry). */
export const NukiTrigger = {
  /** A Bluetooth command. */
  system: 0x00,
  /** A key from outside or the wheel inside. */
  manual: 0x01,
  /** The lock's button. */
  button: 0x02,
  /** Executed automatically by the lock (e.g. at a set time). */
  automatic: 0x03,
  /** Auto relock. */
  autoLock: 0x06,
} as const;

/** Lock Action, what the lock is asked to do (Lock Action, Keyturner States, Log Entry). */
export const NukiLockAction = {
  /** Unlock. */
  unlock: 0x01,
  /** Lock. */
  lock: 0x02,
  /** Unlatch (pull the latch). */
  unlatch: 0x03,
  /** Lock 'n' go: unlock, then lock after the timer. */
  lockNGo: 0x04,
  /** Lock 'n' go with unlatch. */
  lockNGoWithUnlatch: 0x05,
  /** Full lock (two turns). */
  fullLock: 0x06,
  /** Fob pressed once. */
  fobAction1: 0x81,
  /** Fob pressed twice. */
  fobAction2: 0x82,
  /** Fob pressed three times. */
  fobAction3: 0x83,
} as const;

/** Flag bits of Lock Action. */
export const NukiLockActionFlag = {
  /** AU: the action is an auto unlock. */
  autoUnlock: 0x01,
  /** FO: force. */
  force: 0x02,
} as const;

/** Completion status of a lock action (Keyturner States, Log Entry). */
export const NukiCompletionStatus = {
  /** Success. */
  success: 0x00,
  /** The motor blocked. */
  motorBlocked: 0x01,
  /** Cancelled. */
  canceled: 0x02,
  /** Too recent. */
  tooRecent: 0x03,
  /** Busy. */
  busy: 0x04,
  /** Low motor voltage. */
  lowMotorVoltage: 0x05,
  /** Clutch failure. */
  clutchFailure: 0x06,
  /** Motor power failure. */
  motorPowerFailure: 0x07,
  /** Incomplete. */
  incompleteFailure: 0x08,
  /** Keypad: invalid code. */
  invalidCode: 0xe0,
  /** Other error. */
  otherError: 0xfe,
  /** Unknown. */
  unknown: 0xff,
} as const;

/** Door sensor state (Keyturner States). */
export const NukiDoorSensorState = {
  /** No door sensor. */
  unavailable: 0x00,
  /** Door sensor switched off. */
  deactivated: 0x01,
  /** Door closed. */
  doorClosed: 0x02,
  /** Door open. */
  doorOpened: 0x03,
  /** The sensor cannot tell. */
  doorStateUnknown: 0x04,
  /** Calibrating. */
  calibrating: 0x05,
} as const;

/** ID Type of an authorization (Authorization Data, Authorization Entry). */
export const NukiIdType = {
  /** A Nuki App (what this gateway pairs as by default). */
  app: 0,
  /** A Nuki Bridge (a lock has one; pairing as one unregisters the existing bridge). */
  bridge: 1,
  /** A Nuki Fob. */
  fob: 2,
  /** A Nuki Keypad. */
  keypad: 3,
} as const;

/** Type of a log entry (Log Entry). */
export const NukiLogEntryType = {
  /** Logging enabled or disabled. */
  loggingEnabled: 0x01,
  /** A lock action. */
  lockAction: 0x02,
  /** A calibration. */
  calibration: 0x03,
  /** An initialization run. */
  initializationRun: 0x04,
  /** A keypad action. */
  keypadAction: 0x05,
  /** The door sensor saw the door open or close. */
  doorSensor: 0x06,
  /** Door sensor logging enabled or disabled. */
  doorSensorLogging: 0x07,
} as const;

/** Sort order of Request Log Entries. */
export const NukiLogSortOrder = {
  /** Oldest first. */
  ascending: 0x00,
  /** Newest first. */
  descending: 0x01,
} as const;

/**
 * The key of `value` in one of the tables above, or undefined.
 *
 * @example nukiConstantName(NukiLockState, 0x03) // "unlocked"
 */
export function nukiConstantName<T extends Record<string, number>>(table: T, value: number): (keyof T & string) | undefined {
  for (const [key, code] of Object.entries(table)) {
    if (code === value) return key;
  }
  return undefined;
}
