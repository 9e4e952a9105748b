/**
 * The topics of one site (docs/design.md §11): everything under `<base_topic>/`, each lock under
 * its id, and Home Assistant's discovery topics under `<discovery_prefix>/`. The base topic (and
 * the node ids made from it) keeps sites apart, so many sites can share one broker.
 */
export type ModeControl = 'ring_to_open' | 'continuous_mode';

/** A command topic of one lock: `set` (LOCK, UNLOCK, OPEN) or a mode switch's `set`. */
export interface CommandTopic {
  lockId: string;
  control: 'bolt' | ModeControl;
}

const LOCK_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export class MqttTopics {
  /** The base topic as a node-id prefix: Home Assistant allows `[a-zA-Z0-9_-]` there. */
  private readonly nodePrefix: string;

  constructor(
    readonly base: string,
    readonly discoveryPrefix: string,
  ) {
    this.nodePrefix = base.replace(/[^A-Za-z0-9_-]/g, '_');
  }

  /** The service's availability (`online`/`offline`, retained, with a last will). */
  status(): string {
    return `${this.base}/status`;
  }

  state(lockId: string): string {
    return `${this.base}/${lockId}/state`;
  }

  availability(lockId: string): string {
    return `${this.base}/${lockId}/availability`;
  }

  attributes(lockId: string): string {
    return `${this.base}/${lockId}/attributes`;
  }

  event(lockId: string): string {
    return `${this.base}/${lockId}/event`;
  }

  set(lockId: string): string {
    return `${this.base}/${lockId}/set`;
  }

  commandResult(lockId: string): string {
    return `${this.base}/${lockId}/command_result`;
  }

  /** An Opener mode's state (`ON`/`OFF`, retained). */
  mode(lockId: string, mode: ModeControl): string {
    return `${this.base}/${lockId}/${mode}`;
  }

  modeSet(lockId: string, mode: ModeControl): string {
    return `${this.base}/${lockId}/${mode}/set`;
  }

  /** Every retained topic of a lock (emptied when the lock is removed). */
  retainedOf(lockId: string): string[] {
    return [this.state(lockId), this.availability(lockId), this.attributes(lockId), this.mode(lockId, 'ring_to_open'), this.mode(lockId, 'continuous_mode')];
  }

  /** What the adapter subscribes to for commands. */
  commandFilters(): string[] {
    return [`${this.base}/+/set`, `${this.base}/+/ring_to_open/set`, `${this.base}/+/continuous_mode/set`];
  }

  /** The lock and control of a command topic; null for any other topic. */
  parseCommand(topic: string): CommandTopic | null {
    const prefix = `${this.base}/`;
    if (!topic.startsWith(prefix)) return null;
    const parts = topic.slice(prefix.length).split('/');
    const [lockId, first, second] = parts;
    if (lockId === undefined || !LOCK_ID.test(lockId)) return null;
    if (parts.length === 2 && first === 'set') return { lockId, control: 'bolt' };
    if (parts.length === 3 && second === 'set' && (first === 'ring_to_open' || first === 'continuous_mode')) return { lockId, control: first };
    return null;
  }

  /** Home Assistant's node id of a lock: unique per site and lock. */
  nodeId(lockId: string): string {
    return `${this.nodePrefix}_${lockId}`;
  }

  /** The lock id of one of this site's node ids; null for anyone else's. */
  lockIdOfNode(nodeId: string): string | null {
    const prefix = `${this.nodePrefix}_`;
    if (!nodeId.startsWith(prefix)) return null;
    const lockId = nodeId.slice(prefix.length);
    return LOCK_ID.test(lockId) ? lockId : null;
  }

  /** Device-based discovery: one config per lock. */
  discovery(lockId: string): string {
    return `${this.discoveryPrefix}/device/${this.nodeId(lockId)}/config`;
  }

  /** Every device config on the broker (this site's are told apart by their node id). */
  discoveryFilter(): string {
    return `${this.discoveryPrefix}/device/+/config`;
  }

  /** The node id of a device config topic; null for another topic. */
  nodeOfDiscovery(topic: string): string | null {
    const match = new RegExp(`^${escape(this.discoveryPrefix)}/device/([A-Za-z0-9_-]+)/config$`).exec(topic);
    return match?.[1] ?? null;
  }

  /** Home Assistant's birth and last will (`online` after a restart: announce again). */
  homeAssistantStatus(): string {
    return `${this.discoveryPrefix}/status`;
  }
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
