import { Ajv, type Options } from 'ajv';
import addFormatsImport from 'ajv-formats';
import type { FastifyInstance } from 'fastify';
import { type ApiError, validationError } from './errors.js';
import { isCalendarDay } from './local-time.js';
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
  return ajv;
}

/**
 * Bodies are validated strictly ("2" is not a number, unknown fields are errors);
 * query strings and path params are text on the wire, so they are coerced.
 */
export function installValidators(app: FastifyInstance): void {
  const strict = makeAjv({ coerceTypes: false });
  const coercing = makeAjv({ coerceTypes: true });
  app.setValidatorCompiler(({ schema, httpPart }) =>
    httpPart === 'body' ? strict.compile(schema) : coercing.compile(schema),
  );
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
