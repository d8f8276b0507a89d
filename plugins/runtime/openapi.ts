import type { RouteInfo, TSchema } from '../../sdk/index.ts';

const errorSchema = {
  type: 'object', required: ['error', 'code'],
  properties: { error: { type: 'string' }, code: { type: 'string' }, details: { type: 'array', items: {} } },
};

/** OpenAPI 3.1 built from the live route table: one route declaration drives validation and docs. */
export function buildOpenApi(routes: RouteInfo[], version: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const path = route.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}').replace(/\*([A-Za-z0-9_]+)/g, '{$1}');
    const { schema } = route;
    const parameters = [
      ...parametersOf(schema.params, 'path', route.path),
      ...parametersOf(schema.query, 'query', route.path),
      ...parametersOf(schema.headers, 'header', route.path),
    ];
    const responses: Record<string, unknown> = {};
    for (const [status, body] of Object.entries(schema.response ?? {})) responses[status] = { description: `Status ${status}`, content: { 'application/json': { schema: body } } };
    if (!Object.keys(responses).length) responses['200'] = { description: 'Success' };
    responses.default = { description: 'Error', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } };
    const bodyType = route.multipart ? 'multipart/form-data' : 'application/json';
    (paths[path] ??= {})[route.method.toLowerCase()] = {
      operationId: `${route.method.toLowerCase()}${path.replace(/[^A-Za-z0-9]+(.)?/g, (_, c: string | undefined) => (c ?? '').toUpperCase())}`,
      summary: route.summary, description: route.description, tags: route.tags ?? [route.pluginId],
      'x-plugin': route.pluginId, 'x-access': route.access,
      ...(route.access === 'public' && { security: [] }),
      ...(parameters.length && { parameters }),
      ...((schema.body || route.multipart) && { requestBody: { required: Boolean(schema.body), content: { [bodyType]: { schema: schema.body ?? { type: 'object' } } } } }),
      responses,
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'svc agent service', version,
      description: 'Errors share the body {error, code, details?}. Access levels (x-access): public, token, sensitive (loopback without a configured token), sensitive-strict (token required in production).',
    },
    servers: [{ url: '/' }],
    security: [{ bearer: [] }, { svcToken: [] }, { apiKey: [] }],
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer' },
        svcToken: { type: 'apiKey', in: 'header', name: 'x-svc-token' },
        apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' },
      },
      schemas: { Error: errorSchema },
    },
    paths,
  };
}

function parametersOf(schema: TSchema | undefined, location: 'path' | 'query' | 'header', routePath: string): unknown[] {
  const object = schema as { properties?: Record<string, TSchema>; required?: string[] } | undefined;
  if (object?.properties) {
    return Object.entries(object.properties).map(([name, property]) => ({
      name, in: location, required: location === 'path' || (object.required ?? []).includes(name), schema: property,
    }));
  }
  if (location !== 'path') return [];
  return [...routePath.matchAll(/[:*]([A-Za-z0-9_]+)/g)].map((m) => ({ name: m[1], in: 'path', required: true, schema: { type: 'string' } }));
}
