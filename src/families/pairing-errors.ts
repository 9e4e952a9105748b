/**
 * Failures of a family's pairing (src/families/lock-family-module.ts `FamilyPairing`), shared so
 * the CLI and the settings page tell them apart without knowing the family.
 */

/** A failure the person can act on: one sentence that says what to do. */
export class PairingFailed extends Error {}

/** A scan could not listen at all: no Bluetooth the transport can use (no D-Bus, no BlueZ, no adapter). */
export class BluetoothUnavailable extends PairingFailed {}
