/**
 * Stands in for the `yaml` package inside the service thread's bundle
 * (scripts/service-thread-bundle.mjs). @fastify/swagger requires it at load for YAML output and
 * YAML specification files; the service uses neither (it serves /openapi.json from the routes), so
 * ~160 KB of parser stays out of every start. Asking for YAML there fails loudly.
 */
const leftOut = () => {
  throw new Error('YAML is not part of the service thread (scripts/yaml-left-out.mjs)');
};
export const parse = leftOut;
export const stringify = leftOut;
