import { Ajv, type ErrorObject, type Options, type ValidateFunction } from 'ajv';
import addFormatsImport from 'ajv-formats';
import type { FastifyInstance, RouteOptions } from 'fastify';
import { isCurrency } from './currency.js';
import { type ApiError, validationError, validationErrors } from './errors.js';
import { isCalendarDay } from './local-time.js';
import type { SchemaCompilers } from './schema-compilers.js';
import { isParsableInstant } from './time.js';

// ajv-formats ships CommonJS; under NodeNext its default export arrives wrapped.
const addFormats = ((addFormatsImport as unknown as { default?: unknown }).default ??
  addFormatsImport) as typeof addFormatsImport.default;

function makeAjv(opts: Options): Ajv {
  const ajv = new Ajv({
    strict: false,
    allErrors: false,
    removeAdditional: false,
    useDefaults: true,
    // verbose: errors carry their schema, whose description turns into a readable message.
    verbose: true,
    ...opts,
  });
  addFormats(ajv, ['email', 'date-time', 'uri', 'date']);
  // RFC 3339 (and so ajv-formats) allows date-times no JavaScript Date can hold: a leap second
  // (`2016-12-31T23:59:60Z`), an offset of hours only (`+05`). Every date-time input must name a
  // finite instant, so such a value fails the format here (422 naming the parameter) instead of
  // becoming NaN in a service.
  const rfc3339 = ajv.formats['date-time'];
  const valid = typeof rfc3339 === 'object' && 'validate' in rfc3339 ? rfc3339.validate : undefined;
  if (typeof valid !== 'function') throw new Error('ajv-formats did not register date-time');
  ajv.addFormat('date-time', {
    type: 'string',
    validate: (s: string) => (valid as (s: string) => boolean)(s) && isParsableInstant(s),
  });
  // A date is a day the services can place in a zone (`isCalendarDay`): ajv-formats also takes the
  // year 0000, which no service can read, and a value the validator passes but a service does not
  // read as a day would be stored as it came and fail every answer that shows it.
  ajv.addFormat('date', { type: 'string', validate: isCalendarDay });
  // Three capital letters are not yet a currency: `ZZZ` or `XXX` must be refused, not stored.
  ajv.addFormat('currency', { type: 'string', validate: isCurrency });
  return ajv;
}

/**
 * Bodies are validated strictly ("2" is not a number, unknown fields are errors);
 * query strings and path params are text on the wire, so they are coerced.
 * Every route of the API (`/v1/…`) refuses a query parameter it does not declare (`strictQuery`).
 */
export function installValidators(app: FastifyInstance, compilers: SchemaCompilers): void {
  const strict = makeAjv({ coerceTypes: false });
  const coercing = makeAjv({ coerceTypes: true });
  app.setValidatorCompiler(({ schema, httpPart }) =>
    httpPart === 'body'
      ? compilers.once('body', schema, () => strict.compile(schema))
      : compilers.once('coerced', schema, () => plainNumbers(schema, coercing.compile(schema))),
  );
  // Before any route, so it sees every one (hooks reach the plugins registered after them), and
  // before the OpenAPI document's own onRoute hook, which then documents the same schema.
  app.addHook('onRoute', strictQuery);
}

/** What a number in a query string or path may look like: plain decimal, as people write it. */
const PLAIN = { integer: /^-?\d+$/, number: /^-?\d+(\.\d+)?$/ } as const;

type Validate = ((data: unknown, cxt?: Parameters<ValidateFunction>[1]) => boolean) & {
  errors?: ErrorObject[] | null;
  schemaEnv?: unknown;
};

/**
 * AJV coerces a query or path value with `Number()`, so `limit=0x10`, `1e1`, `+5`, ` 5` or `5.0`
 * would pass as integers (16, 10, 5…). Stripe takes only what it documents: a parameter of type
 * integer (or number) is checked as text first, and anything but plain decimal digits is the same
 * 422 `parameter_invalid` naming it that a word there gets (errors.ts reads the AJV-shaped error).
 * One wrapper for every route's querystring and params, so no route has to remember it.
 */
function plainNumbers(schema: unknown, validate: ValidateFunction): Validate {
  const props = (schema as { properties?: Record<string, { type?: unknown }> }).properties ?? {};
  const numeric = Object.entries(props).flatMap(([name, s]) =>
    s.type === 'integer' || s.type === 'number' ? [[name, s.type] as const] : [],
  );
  if (numeric.length === 0) return validate;
  const wrapped: Validate = (data, cxt) => {
    for (const [name, type] of numeric) {
      const value = (data as Record<string, unknown> | null)?.[name];
      if (typeof value === 'string' && !PLAIN[type].test(value)) {
        const instancePath = `/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`;
        wrapped.errors = [
          { instancePath, schemaPath: '', keyword: 'type', params: { type }, message: `must be ${type}` },
        ];
        return false;
      }
    }
    const ok = validate(data, cxt);
    wrapped.errors = validate.errors;
    return ok;
  };
  // Fastify passes the parent to AJV's own functions (so a root value can be coerced): keep that.
  wrapped.schemaEnv = validate.schemaEnv;
  return wrapped;
}

/** The API's routes: everything under `/v1/`. */
const API_PREFIX = '/v1/';
/**
 * Under `/v1/` but opened by a person from an email, not called by a client: a mail provider's or a
 * link scanner's added parameter must not turn "unsubscribe" into a 422 on the customer's screen.
 */
const LENIENT = new Set(['/v1/unsubscribe']);

/**
 * Nothing is silently dropped (DESIGN.md, docs/errors.md): a query parameter an API route does not
 * declare is 422 `parameter_unknown` naming it, as an unknown body field is. Enforced here, for every
 * route under `/v1/` whatever its schema says: a route without a querystring schema gets an empty one,
 * and a querystring schema gets `additionalProperties: false` (on a copy: schemas are shared, e.g. the
 * tracking page's, which stays lenient). So a route that reads a query parameter must declare it in its
 * TypeBox querystring schema, which also puts it in the OpenAPI document.
 *
 * Routes outside `/v1/` (the tracking page, the console's and courier app's files, /docs, /healthz,
 * /readyz, /metrics) are pages and probes, not the API: a shop's `utm_…` or a cache-buster on them is
 * ignored, never a 422 on a customer's screen.
 */
export function strictQuery(route: RouteOptions): void {
  if (!route.url.startsWith(API_PREFIX) || LENIENT.has(route.url)) return;
  const query = route.schema?.querystring as Record<string, unknown> | undefined;
  if (query === undefined) {
    route.schema = { ...route.schema, querystring: { type: 'object', properties: {}, additionalProperties: false } };
    return;
  }
  if (query.type !== 'object') {
    throw new Error(`${route.method} ${route.url}: a querystring schema must be an object of named parameters`);
  }
  if (query.additionalProperties === false) return;
  if (query.additionalProperties !== undefined) {
    throw new Error(`${route.method} ${route.url}: API routes take no undeclared query parameters`);
  }
  route.schema = { ...route.schema, querystring: { ...query, additionalProperties: false } };
}

/**
 * The check a route runs on its JSON body, for bodies that arrive another way (a bulk import's
 * rows): the same AJV options, so the same defaults, codes and `param` paths as the route.
 */
export function bodyValidator(schema: object): (data: unknown) => ApiError | undefined {
  const validate = makeAjv({ coerceTypes: false }).compile(schema);
  return (data) =>
    validate(data)
      ? undefined
      : validationError((validate.errors ?? []) as Parameters<typeof validationError>[0], 'body');
}

/**
 * Every failure of a body `bodyValidator` refused, one per parameter (`validationErrors`): a bulk
 * import reports all of a row's at once. Compiled on first use, since only a rejected row needs it.
 */
export function bodyErrors(schema: object): (data: unknown) => ApiError[] {
  let validate: ValidateFunction | undefined;
  return (data) => {
    validate ??= makeAjv({ coerceTypes: false, allErrors: true }).compile(schema);
    return validate(data)
      ? []
      : validationErrors((validate.errors ?? []) as Parameters<typeof validationErrors>[0], 'body');
  };
}
