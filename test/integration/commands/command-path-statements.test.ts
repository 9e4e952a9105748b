/**
 * What SQLite runs for one remote command, end to end over HTTP (POST, the gateway's exchange with
 * the simulated lock, the event record, the client's polls): the guard of the command path's cost
 * (docs/performance.md "command-roundtrip-nuki"). The SQLite that better-sqlite3 13 ships (3.54.1)
 * prepares a statement with a join and a bound parameter again at every run — ~50 µs on our
 * schema — so a join on this path (the event recorder's look-up by command was one) costs more
 * than the rest of the path's queries together; and a statement prepared per request costs the
 * same. Neither may come back: every statement the path runs was prepared before it, and none joins.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { SqliteDatabase } from '../../../src/store/database.js';
import { startCommandFixture, type CommandFixture } from './command-fixture.js';

interface Trace {
  prepared: string[];
  ran: string[];
}

/** Records every statement prepared on `db` and every statement run (get, run, all, iterate) while `trace` is set. */
function traceStatements(db: SqliteDatabase): { during<T>(work: () => Promise<T>): Promise<{ value: T; trace: Trace }> } {
  let trace: Trace | null = null;
  const statementPrototype = Object.getPrototypeOf(db.prepare('SELECT 1')) as Record<string, (...args: unknown[]) => unknown>;
  for (const method of ['get', 'run', 'all', 'iterate']) {
    const original = statementPrototype[method];
    if (original === undefined) throw new Error(`no Statement.${method}`);
    statementPrototype[method] = function (this: { source: string }, ...args: unknown[]): unknown {
      trace?.ran.push(this.source);
      return original.apply(this, args);
    };
  }
  const prepare = db.prepare.bind(db);
  (db as { prepare: (sql: string) => unknown }).prepare = (sql: string): unknown => {
    trace?.prepared.push(sql);
    return prepare(sql);
  };
  return {
    async during(work) {
      trace = { prepared: [], ran: [] };
      try {
        const value = await work();
        return { value, trace };
      } finally {
        trace = null;
      }
    },
  };
}

describe('the statements of one remote command', () => {
  let f: CommandFixture;
  let tracer: ReturnType<typeof traceStatements>;

  beforeAll(async () => {
    f = await startCommandFixture({ signInOthers: false });
    tracer = traceStatements(f.test.service.db);
  }, 30_000);

  afterAll(async () => {
    await f.test.close();
  });

  const commandOn = async (lockId: string, type: string): Promise<Trace> => {
    const { value, trace } = await tracer.during(async () => {
      const created = await f.call(f.owner.token, 'POST', `/locks/${lockId}/commands`, { type });
      expect(created.status).toBe(201);
      return f.untilFinished(f.owner.token, lockId, String(created.body.id));
    });
    expect(value).toMatchObject({ status: 'completed' });
    return trace;
  };

  it.each([
    ['Front Door (our profile)', 'frontDoor'],
    ['Back Door (a Nuki)', 'backDoor'],
  ] as const)('%s: nothing is prepared and nothing joins', async (_name, lock) => {
    // Warm: the first command may prepare what the service prepares on first use.
    await commandOn(f[lock], 'unlock');
    const trace = await commandOn(f[lock], 'lock');
    expect(trace.ran.length).toBeGreaterThan(0);
    // The command's own rows were written and its event recorded on this path.
    expect(trace.ran.some((sql) => /^\s*INSERT INTO commands/.test(sql))).toBe(true);
    expect(trace.ran.some((sql) => /^\s*INSERT INTO lock_events/.test(sql))).toBe(true);
    expect(trace.prepared).toEqual([]);
    expect(trace.ran.filter((sql) => /\bJOIN\b/i.test(sql))).toEqual([]);
  });
});
