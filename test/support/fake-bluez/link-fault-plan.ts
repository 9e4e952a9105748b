import type { LockAction } from '../../../src/domain/lock-vocabulary.js';
import { unsafeUniformIntDistribution, xoroshiro128plus, type RandomGenerator } from 'pure-rand';

/**
 * A link fault a soak injects around one command:
 * - `radio_drop`: the fake drops the link (`PropertiesChanged(Connected=false)`) `delayMs` after
 *   the command is sent — in the middle of it, or just after;
 * - `out_of_range`: the lock leaves range (the link drops, connects fail) and comes back after
 *   `delayMs`, while commands keep coming;
 * - `drop_after_write`: the link drops right after this command's Control Point write, before the
 *   lock can answer.
 */
export type LinkFault = 'radio_drop' | 'out_of_range' | 'drop_after_write';

/** One step of a lock's plan: the command to send and the fault (if any) to inject with it. */
export interface PlannedCommand {
  action: LockAction;
  fault: LinkFault | null;
  /** `radio_drop`: delay after the send; `out_of_range`: how long the lock stays away (ms). */
  delayMs: number;
}

/** How a plan is drawn. */
export interface LinkFaultPlanOptions {
  /** Commands in the plan. */
  commands: number;
  /** Chance, in percent, that a command comes with a fault. Every plan has at least one fault. */
  faultPercent: number;
}

const FAULTS: readonly LinkFault[] = ['radio_drop', 'out_of_range', 'drop_after_write'];

function draw(rng: RandomGenerator, from: number, to: number): number {
  return unsafeUniformIntDistribution(from, to, rng);
}

/**
 * The commands and faults of one lock in a soak, drawn from a seeded generator (pure-rand's
 * xoroshiro128+), so the same seed gives the same plan on every run and every machine. Each lock
 * gets its own seed: its plan does not depend on how the locks' work interleaves.
 */
export function linkFaultPlan(seed: number, options: LinkFaultPlanOptions): PlannedCommand[] {
  const rng = xoroshiro128plus(seed);
  const plan: PlannedCommand[] = [];
  for (let index = 0; index < options.commands; index += 1) {
    const action: LockAction = draw(rng, 0, 1) === 0 ? 'lock' : 'unlock';
    const faulty = draw(rng, 0, 99) < options.faultPercent;
    const fault = faulty ? (FAULTS[draw(rng, 0, FAULTS.length - 1)] ?? null) : null;
    plan.push({ action, fault, delayMs: delayFor(rng, fault) });
  }
  if (options.commands > 0 && !plan.some((step) => step.fault !== null)) {
    const step = plan[draw(rng, 0, options.commands - 1)];
    const fault = FAULTS[draw(rng, 0, FAULTS.length - 1)] ?? null;
    if (step !== undefined) Object.assign(step, { fault, delayMs: delayFor(rng, fault) });
  }
  return plan;
}

function delayFor(rng: RandomGenerator, fault: LinkFault | null): number {
  if (fault === 'radio_drop') return draw(rng, 0, 20);
  if (fault === 'out_of_range') return draw(rng, 20, 250);
  return 0;
}
