import { randomInt } from 'node:crypto';
import type { Clock } from '../../../domain/clock.js';
import { peekRequestHeader } from '../protocol/control-frame-codec.js';
import { NO_CREDENTIAL_UUID, decodeCredentialResponse, encodeCredentialRequest, type CredentialResponse } from '../protocol/credential-frame-codec.js';
import { Deadline, EXPIRED } from '../../../gateway/deadline.js';
import type { GattConnection } from '../../../gateway/gatt-transport.js';
import type { CredentialOpcode } from '../protocol/lock-profile.js';
import type { CredentialCapability, CredentialEntry } from '../../../gateway/lock-driver.js';
import { EKeyAnswerSlot } from './ekey-answer-slot.js';
import type { EKeyRequestCounter } from './ekey-request-counter.js';

/**
 * The credential allow-list of our profile (docs/ble-protocol.md "Credentials"): what the lock
 * should hold, what it holds as far as its answers tell, and the signed clear/allow/revoke
 * exchanges that move one towards the other — the difference while connected, everything after
 * a reconnect.
 */
export class EKeyCredentialList implements CredentialCapability {
  /** The allow-list the lock should hold; null until the caller first sets one (the list is then left alone). */
  private desired: Map<string, number> | null = null;
  /** What the lock holds as far as its answers tell; null = unknown, so the next push is a full resync. */
  private held: Map<string, number> | null = null;
  private readonly slot = new EKeyAnswerSlot<CredentialResponse>();

  constructor(
    private readonly key: Buffer,
    private readonly counter: EKeyRequestCounter,
    private readonly clock: Clock,
    private readonly operationTimeoutMs: number,
  ) {}

  setDesired(entries: readonly CredentialEntry[]): void {
    this.desired = new Map(entries.map((entry) => [entry.credential.toLowerCase(), Math.max(0, Math.floor(entry.validUntil))]));
  }

  async push(connection: GattConnection): Promise<void> {
    if (this.desired === null) return;
    try {
      if (this.held === null) await this.resync(connection);
      else await this.writeDifference(connection, this.held, this.desired);
    } catch (error) {
      this.held = null;
      throw error;
    }
  }

  /** A new connection: the lock's list is unknown until rewritten whole. @throws on failure. */
  async resyncAfterConnect(connection: GattConnection): Promise<void> {
    this.held = null;
    if (this.desired === null) return;
    await this.push(connection);
  }

  /** An answer on the Credentials characteristic. */
  handleResponse(value: Buffer): void {
    if (this.slot.requestId === undefined) return;
    const decoded = decodeCredentialResponse(value, this.key);
    if (!decoded.ok) {
      this.slot.unauthenticated(peekRequestHeader(value)?.requestId);
      return;
    }
    this.slot.deliver(decoded.value.requestId, decoded.value.requestCounter, decoded.value);
  }

  linkLost(): void {
    this.slot.linkLost();
  }

  /** Clear, then allow every desired credential. @throws Error when the lock refuses or does not answer. */
  private async resync(connection: GattConnection): Promise<void> {
    const desired = this.desired;
    if (desired === null) return;
    this.held = null;
    await this.exchange(connection, 'clear', NO_CREDENTIAL_UUID, 0);
    const held = new Map<string, number>();
    this.held = held;
    await this.writeDifference(connection, held, desired);
  }

  private async writeDifference(connection: GattConnection, held: Map<string, number>, desired: ReadonlyMap<string, number>): Promise<void> {
    const now = this.clock.now();
    // The lock dropped these by its own clock already.
    for (const [credential, validUntil] of held) if (validUntil <= now) held.delete(credential);
    for (const credential of [...held.keys()]) {
      if (desired.has(credential)) continue;
      await this.exchange(connection, 'revoke', credential, 0);
      held.delete(credential);
    }
    for (const [credential, validUntil] of desired) {
      if (validUntil <= now || held.get(credential) === validUntil) continue;
      await this.exchange(connection, 'allow', credential, validUntil);
      held.set(credential, validUntil);
    }
  }

  /** Writes one signed Credentials request and waits for `ok`. @throws Error on any other outcome. */
  private async exchange(connection: GattConnection, opcode: CredentialOpcode, credential: string, validUntil: number): Promise<void> {
    const deadline = new Deadline(this.operationTimeoutMs);
    try {
      // Two tries: the second only after the lock told us (authenticated) its counter is ahead.
      for (let attempt = 0; attempt < 2; attempt += 1) {
        const counter = this.counter.next();
        const requestId = randomInt(0, 0x1_0000_0000);
        const answered = this.slot.open(requestId, counter);
        let result;
        try {
          const frame = encodeCredentialRequest({ opcode, requestId, counter, credential, validUntil }, this.key);
          if ((await deadline.race(connection.write('credentials', frame))) === EXPIRED) throw new Error(`${opcode} write timed out`);
          result = await deadline.race(answered);
        } finally {
          this.slot.close();
        }
        if (result === EXPIRED) throw new Error(`no answer to ${opcode}`);
        if (result.kind === 'link_lost') throw new Error('link lost');
        if (result.kind === 'unauthenticated') throw new Error(`the answer to ${opcode} failed authentication (is the configured key right?)`);
        const response = result.response;
        if (response.result === 'ok') return;
        if (response.result === 'stale_counter' && attempt === 0) {
          this.counter.catchUp(response.highestCounter);
          continue;
        }
        throw new Error(`the lock refused ${opcode}: ${response.result}`);
      }
      throw new Error(`the lock refused ${opcode}: stale_counter`);
    } finally {
      deadline.cancel();
    }
  }
}
