import { Ajv, type Options } from 'ajv';
import addFormatsImport from 'ajv-formats';
import type { FastifyInstance } from 'fastify';

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
