import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { TRANSPORT_KINDS, DEFAULT_TRANSPORT_KIND, transportKind } from '../../../src/gateway/transports/transport-kinds.js';
import { PluginConfigSchema } from '../../../src/config/plugin-config-schema.js';
import { RecordingLogger } from '../../support/recording-logger.js';
import { PROJECT_ROOT } from '../../support/child-process.js';

/* The one list of the kinds that can serve as the host's radio (config `bluetooth.transport`). */

describe('TRANSPORT_KINDS', () => {
  it('names each kind once, and the default is one of them', () => {
    const ids = TRANSPORT_KINDS.map((kind) => kind.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toContain(DEFAULT_TRANSPORT_KIND);
    for (const id of ids) expect(transportKind(id).id).toBe(id);
  });

  it("is where the config form's choices of bluetooth.transport come from, each under its own title", () => {
    const file = JSON.parse(readFileSync(join(PROJECT_ROOT, 'config.schema.json'), 'utf8')) as {
      schema: { properties: { bluetooth: { properties: { transport: { oneOf: unknown } } } } };
    };
    expect(file.schema.properties.bluetooth.properties.transport.oneOf).toEqual(TRANSPORT_KINDS.map((kind) => ({ title: kind.formTitle, enum: [kind.id] })));
    const inCode = PluginConfigSchema.properties.bluetooth.properties.transport as unknown as { 'x-unset': string; anyOf: { const: string }[] };
    expect(inCode['x-unset']).toBe(DEFAULT_TRANSPORT_KIND);
    expect(inCode.anyOf.map((choice) => choice.const)).toEqual(TRANSPORT_KINDS.map((kind) => kind.id));
  });

  it('opens each kind as a transport of that kind, loading nothing and connecting to nothing yet', () => {
    const logger = new RecordingLogger();
    for (const kind of TRANSPORT_KINDS) {
      const transport = kind.openHostRadio({ adapter: undefined, logger });
      expect(transport.kind).toBe(kind.id);
    }
    expect(logger.lines).toEqual([]);
  });
});
