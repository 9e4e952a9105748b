import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { ObservedResponse } from '../../src/api/server.js';
import { PROJECT_ROOT } from './global-setup.js';

interface OpenApiDocument {
  paths: Record<string, Record<string, { responses?: Record<string, { content?: Record<string, { schema?: unknown }> }> }>>;
  components?: { schemas?: Record<string, unknown> };
}

/**
 * Holds every response the API tests' service sends against `docs/openapi.json` (Ajv, JSON Schema
 * 2020-12 as OpenAPI 3.1 uses): its status must be documented for the operation, with its media
 * type, and a JSON body must match the schema. Routes the document leaves out on purpose (the web
 * app's files, `/openapi.json`, `/robots.txt`) are not checked.
 */
export class OpenApiResponseCheck {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true });
  private readonly compiled = new Map<string, ValidateFunction>();
  readonly mismatches: string[] = [];

  constructor(private readonly document: OpenApiDocument = JSON.parse(readFileSync(join(PROJECT_ROOT, 'docs', 'openapi.json'), 'utf8')) as OpenApiDocument) {
    addFormats.default(this.ajv);
    this.ajv.addSchema({ $id: 'openapi', components: document.components ?? {} });
  }

  /** Checks one response; a mismatch is recorded (and returned). */
  check(response: ObservedResponse): string | undefined {
    const mismatch = this.find(response);
    if (mismatch !== undefined) this.mismatches.push(mismatch);
    return mismatch;
  }

  private find({ method, route, status, contentType, body }: ObservedResponse): string | undefined {
    if (route === undefined || method === 'HEAD' || status === 304) return undefined;
    const path = route.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
    const operation = this.document.paths[path]?.[method.toLowerCase()];
    if (operation === undefined) return undefined;
    const where = `${method} ${path} → ${String(status)} ${contentType}`;
    const documented = operation.responses?.[String(status)];
    if (documented === undefined) return `${where}: status not documented`;
    const media = contentType.split(';')[0]?.trim().toLowerCase() ?? '';
    if (documented.content === undefined) {
      return body === undefined || body === '' ? undefined : `${where}: documented without a body, sent ${JSON.stringify(body.slice(0, 200))}`;
    }
    const content = documented.content[media];
    if (content === undefined) return `${where}: media type not documented (documented: ${Object.keys(documented.content).join(', ')})`;
    if (body === undefined || !/^application\/([a-z.+-]*\+)?json$/.test(media)) return undefined;
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      return `${where}: body is not JSON`;
    }
    const validate = this.validator(content.schema);
    if (validate(parsed)) return undefined;
    return `${where}: body does not match the schema: ${this.ajv.errorsText(validate.errors)} in ${body.slice(0, 300)}`;
  }

  private validator(schema: unknown): ValidateFunction {
    // The document's references are local (#/components/…): point them at the registered document.
    const text = JSON.stringify(schema ?? {}).replaceAll('"#/components/', '"openapi#/components/');
    let validate = this.compiled.get(text);
    if (validate === undefined) {
      validate = this.ajv.compile(JSON.parse(text) as object);
      this.compiled.set(text, validate);
    }
    return validate;
  }
}
