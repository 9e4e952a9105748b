import { describe, expect, it } from '@jest/globals';
import SwaggerParser from '@apidevtools/swagger-parser';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { OpenAPI } from 'openapi-types';
import { ServiceRoot } from '../../../src/service-root.js';
import { silentLogger } from '../../../src/logger.js';
import { PROJECT_ROOT } from '../../support/child-process.js';

const COMMITTED = join(PROJECT_ROOT, 'docs', 'openapi.json');

async function generatedDocument(): Promise<unknown> {
  const dataDir = mkdtempSync(join(tmpdir(), 'ekey-openapi-'));
  const service = await ServiceRoot.open({ config: {}, dataDir, logger: silentLogger, demo: false });
  try {
    // Round-trip through JSON, as `ekey-locks openapi` prints it.
    return JSON.parse(JSON.stringify(await service.openApiDocument())) as unknown;
  } finally {
    await service.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

describe('docs/openapi.json', () => {
  it('is what ServiceRoot.openApiDocument() generates (regenerate with `npm run openapi`)', async () => {
    const committed = JSON.parse(readFileSync(COMMITTED, 'utf8')) as unknown;
    expect(committed).toEqual(await generatedDocument());
  });

  it('is a valid OpenAPI document (swagger-parser)', async () => {
    const committed = JSON.parse(readFileSync(COMMITTED, 'utf8')) as OpenAPI.Document;
    await expect(SwaggerParser.validate(committed)).resolves.toBeDefined();
  });
});
