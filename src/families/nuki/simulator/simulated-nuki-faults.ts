/**
 * Faults a test or demo can inject into a simulated Nuki at any time, by changing the fields of
 * `SimulatedNuki.faults`. One-shot faults (`motorBlocked`, `badCrc`, `disconnectMidAction`) reset
 * themselves to false once they have acted; the others hold until they are changed back.
 */
export interface SimulatedNukiFaults {
  /** One-shot: the next motorised move ends motor blocked (lock state 0xFE), as `jamNextMove()`. */
  motorBlocked: boolean;
  /** While set, every Lock Action is answered with Error Report K_ERROR_BUSY. */
  busy: boolean;
  /** One-shot: the CRC of the next reply frame is wrong (inside the ciphertext for encrypted replies). */
  badCrc: boolean;
  /** One-shot: the next Lock Action is answered ACCEPTED, then the link drops; the move still happens and is logged. */
  disconnectMidAction: boolean;
  /** While set, a Lock Action never gets its final Status COMPLETE (everything else is sent). */
  missingComplete: boolean;
  /** While set, every authorization id on the USDIO is unknown (unencrypted Error Report K_ERROR_NOT_AUTHORIZED). */
  unknownAuthorization: boolean;
  /**
   * One-shot: the next keypad write (Add, Update, Remove Keypad Code) loses the link — `before_applying`
   * (the lock never stored it) or `after_applying` (stored, but the answer never came). docs/design.md §4c.
   */
  dropKeypadWrite: 'none' | 'before_applying' | 'after_applying';
  /** Real-time delay before each reply frame, in ms (each waits after the previous one); 0 = next turn of the event loop. */
  replyDelayMs: number;
}

/** A fault set with every fault off. */
export function noSimulatedNukiFaults(): SimulatedNukiFaults {
  return {
    motorBlocked: false,
    busy: false,
    badCrc: false,
    disconnectMidAction: false,
    missingComplete: false,
    unknownAuthorization: false,
    dropKeypadWrite: 'none',
    replyDelayMs: 0,
  };
}
