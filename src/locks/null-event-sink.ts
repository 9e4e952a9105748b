import { newId } from '../domain/ids.js';
import { eventShapeOfCommand } from '../domain/lock-command-type.js';
import type { LockEventSink, RecordedEvent } from '../events/lock-event-sink.js';

/**
 * A {@link LockEventSink} that stores nothing: the runtime's stand-in until an event recorder
 * is plugged in (ServiceRoot wires the real one from src/events/).
 */
export const nullEventSink: LockEventSink = {
  recordActivity: () => null,
  recordCommandCompleted: (input): RecordedEvent => ({
    id: newId(),
    lockId: input.lockId,
    type: eventShapeOfCommand(input.action).type,
    performerId: input.performerId,
    timestamp: input.timestamp,
    value: null,
  }),
  recordBattery: () => null,
};
