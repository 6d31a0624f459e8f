import type { FastifySchema } from 'fastify';

// How named TypeBox schemas (`$id: 'Order'`) become `#/components/schemas/Order` (docs/openapi.md).
// @fastify/swagger already hoists a nested schema with an $id into components; a route's body or
// response that IS a named schema is not nested, so it is wrapped in a one-element allOf for the
// document and the wrapper is replaced by the plain $ref afterwards.

type Json = Record<string, unknown>;
const WRAPPER = 'x-ruta-named';

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const isNamed = (v: unknown): v is Json => isObject(v) && typeof v.$id === 'string';

/** A deep copy without `$id`s: what validation and serialisation compile (they need no names). */
export function withoutIds(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withoutIds);
  if (!isObject(node)) return node;
  const out: Json = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === '$id' && typeof value === 'string') continue;
    out[key] = withoutIds(value);
  }
  return out;
}

function visit(node: unknown, fn: (obj: Json) => void): void {
  if (Array.isArray(node)) {
    for (const item of node) visit(item, fn);
  } else if (isObject(node)) {
    fn(node);
    for (const value of Object.values(node)) visit(value, fn);
  }
}

/**
 * Throws when two different schemas carry the same name: the document would silently show only
 * the first. A root `description` does not count (errorResponses gives each copy its own).
 */
export function namedSchemaChecker(): (schema: unknown, where: string) => void {
  const seen = new Map<string, { json: string; where: string }>();
  return (schema, where) =>
    visit(schema, (sub) => {
      if (!isNamed(sub)) return;
      const { description: _ignored, ...rest } = sub;
      const json = JSON.stringify(withoutIds(rest));
      const id = sub.$id as string;
      const prior = seen.get(id);
      if (!prior) seen.set(id, { json, where });
      else if (prior.json !== json) {
        throw new Error(`Two different schemas are named "${id}" (${prior.where} and ${where}); rename one.`);
      }
    });
}

function wrap(schema: Json): Json {
  // A root description describes the response, not the component.
  const { description, ...inner } = schema;
  return { [WRAPPER]: true, ...(description === undefined ? {} : { description }), allOf: [inner] };
}

/** For the document only: the body and responses that are named schemas get wrapped (see above). */
export function nameTopLevel(schema: FastifySchema): FastifySchema {
  const s = schema as Json;
  const out: Json = { ...s };
  if (isNamed(s.body)) out.body = wrap(s.body);
  if (isObject(s.response)) {
    const response: Json = {};
    for (const [status, r] of Object.entries(s.response)) response[status] = isNamed(r) ? wrap(r) : r;
    out.response = response;
  }
  return out as FastifySchema;
}

function unwrap(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(unwrap);
  if (!isObject(node)) return node;
  if (node[WRAPPER] === true && Array.isArray(node.allOf) && node.allOf.length === 1) return unwrap(node.allOf[0]);
  const out: Json = {};
  for (const [key, value] of Object.entries(node)) out[key] = unwrap(value);
  return out;
}

function deref(doc: Json, schema: unknown): Json | undefined {
  if (!isObject(schema)) return undefined;
  const ref = schema.$ref;
  if (typeof ref !== 'string') return schema;
  const name = ref.replace('#/components/schemas/', '');
  const components = (doc.components as Json | undefined)?.schemas as Json | undefined;
  return deref(doc, components?.[name]);
}

const refName = (ref: string): string => ref.replace('#/components/schemas/', '');

function hasDefault(schemas: Json, node: unknown, seen = new Set<string>()): boolean {
  if (Array.isArray(node)) return node.some((item) => hasDefault(schemas, item, seen));
  if (!isObject(node)) return false;
  if ('default' in node) return true;
  if (typeof node.$ref === 'string') {
    const name = refName(node.$ref);
    if (seen.has(name)) return false;
    seen.add(name);
    return hasDefault(schemas, schemas[name], seen);
  }
  return Object.values(node).some((value) => hasDefault(schemas, value, seen));
}

/**
 * openapi-typescript (by default) makes a property with a `default` required, except where the
 * schema sits under a requestBody: so a named schema with defaults is copied into the request
 * bodies that use it, and clients may still leave those properties out.
 */
function inlineDefaulted(schemas: Json, node: unknown): unknown {
  if (Array.isArray(node)) return node.map((item) => inlineDefaulted(schemas, item));
  if (!isObject(node)) return node;
  if (typeof node.$ref === 'string' && hasDefault(schemas, node)) {
    return inlineDefaulted(schemas, schemas[refName(node.$ref)]);
  }
  const out: Json = {};
  for (const [key, value] of Object.entries(node)) out[key] = inlineDefaulted(schemas, value);
  return out;
}

/** The components that the paths use, directly or through other components. */
function usedComponents(schemas: Json, paths: unknown): Set<string> {
  const used = new Set<string>();
  const queue: unknown[] = [paths];
  while (queue.length > 0) {
    visit(queue.pop(), (obj) => {
      if (typeof obj.$ref !== 'string') return;
      const name = refName(obj.$ref);
      if (used.has(name)) return;
      used.add(name);
      queue.push(schemas[name]);
    });
  }
  return used;
}

/**
 * The finished document: wrappers become plain $refs, and a request body that `{}` satisfies is
 * optional (app.ts treats an absent body as `{}`), so typed clients need not send one.
 */
export function componentizeDocument(doc: Json): Json {
  const out = unwrap(doc) as Json;
  const components = out.components as Json;
  const schemas = (components.schemas ?? {}) as Json;
  for (const methods of Object.values((out.paths as Json | undefined) ?? {})) {
    for (const operation of Object.values(methods as Json)) {
      if (!isObject(operation)) continue;
      for (const response of Object.values((operation.responses ?? {}) as Json)) {
        if (!isObject(response) || response.description !== 'Default Response') continue;
        const ref = ((response.content as Json | undefined)?.['application/json'] as Json | undefined)?.schema;
        if (isObject(ref) && typeof ref.$ref === 'string') response.description = ref.$ref.split('/').pop();
      }
      const body = operation.requestBody as Json | undefined;
      const json = (body?.content as Json | undefined)?.['application/json'] as Json | undefined;
      if (!body || !json) continue;
      const schema = deref(out, json.schema);
      const required = schema?.required;
      if (schema && (!Array.isArray(required) || required.length === 0)) body.required = false;
      json.schema = inlineDefaulted(schemas, json.schema);
    }
  }
  // Sorted, so the document diffs cleanly whatever order the routes register in.
  const used = usedComponents(schemas, out.paths);
  components.schemas = Object.fromEntries(
    Object.keys(schemas)
      .filter((name) => used.has(name))
      .sort()
      .map((name) => [name, schemas[name]]),
  );
  return out;
}
