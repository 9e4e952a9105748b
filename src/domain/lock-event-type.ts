/**
 * A LockEvent type (spec: lock, unlock or battery; docs/design.md §4d adds `ring`, an Opener's
 * doorbell; §4c adds `keypad_refused`, a code the lock refused at its keypad — no code, no performer).
 */
export type LockEventType = 'lock' | 'unlock' | 'battery' | 'ring' | 'keypad_refused';

/**
 * What an event carries beyond the spec's fields (docs/design.md §4d), each present only when
 * true or set: `unlatched` (an unlock that pulled the latch), `opened` (a ring the Opener opened
 * the door on), `mode` (an Opener mode switched on, as `unlock`, or off, as `lock`), `via`
 * (`keypad`: a door code typed at the lock, docs/design.md §4c).
 */
export interface LockEventDetail {
  unlatched?: true;
  opened?: true;
  mode?: 'ring_to_open' | 'continuous_mode';
  /** docs/design.md §4c: the holder typed their eKey's door code on the lock's keypad. */
  via?: 'keypad';
  /** docs/design.md §12: the door code typed at the keypad was a rental stay's. */
  booking?: { uid: string; summary: string };
}
