// Every error code and its status, ApiError, and AJV's failures read as API errors. The handler
// that writes them is error-handler.ts (split from this file when it outgrew ~300 lines).

/** Every error code the API can answer with, and the HTTP status it maps to. */
export const ERROR_STATUS = {
  invalid_json: 400,
  malformed_request: 400,
  api_key_missing: 401,
  api_key_invalid: 401,
  session_invalid: 401,
  invalid_credentials: 401,
  permission_denied: 403,
  file_link_invalid: 403,
  csrf_failed: 403,
  resource_missing: 404,
  route_not_found: 404,
  order_not_cancellable: 409,
  invalid_transition: 409,
  request_timeout: 408,
  idempotency_key_in_use: 409,
  idempotent_secret_withheld: 409,
  email_taken: 409,
  plan_stale: 409,
  plan_not_ready: 409,
  plan_has_violations: 409,
  settlement_not_editable: 409,
  nothing_to_settle: 409,
  cash_balanced: 409,
  handover_already_voided: 409,
  order_not_dispatchable: 409,
  no_courier_fits: 409,
  route_changed: 409,
  pin_locked: 409,
  pin_not_locked: 409,
  request_too_large: 413,
  unsupported_media_type: 415,
  request_header_too_large: 431,
  parameter_missing: 422,
  parameter_invalid: 422,
  parameter_unknown: 422,
  idempotency_key_reused: 422,
  endpoint_limit_reached: 422,
  pin_mismatch: 422,
  rate_limited: 429,
  internal_error: 500,
  service_unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export type ErrorType =
  | 'authentication_error'
  | 'permission_error'
  | 'invalid_request_error'
  | 'rate_limit_error'
  | 'api_error';

function typeFor(status: number): ErrorType {
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  if (status === 429) return 'rate_limit_error';
  if (status >= 500) return 'api_error';
  return 'invalid_request_error';
}

/** The one error class of the API. Anything else that reaches the handler is a 500. */
export class ApiError extends Error {
  readonly status: number;
  readonly type: ErrorType;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly param?: string,
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = 'ApiError';
    this.status = ERROR_STATUS[code];
    this.type = typeFor(this.status);
  }
}

/** `param`: where the id came from, when not the path's `{id}` (`?account=` names `account`). */
export const notFound = (what: string, id: string, param = 'id'): ApiError =>
  new ApiError('resource_missing', `No such ${what}: '${id}'`, param);

/** `?account=` naming the account a request acts for, and no such account (docs/api.md, "Naming an account"). */
export const noSuchAccount = (id: string): ApiError => notFound('account', id, 'account');

export interface AjvError {
  keyword: string;
  instancePath: string;
  schemaPath?: string;
  params: Record<string, unknown>;
  message?: string;
  /** Set by AJV when a propertyNames rule fails: the offending key. */
  propertyName?: string;
  /** Present with AJV's `verbose` option; its `description` makes messages readable. */
  parentSchema?: { description?: string; anyOf?: { type?: unknown }[] };
}

/** `/items/2/description` -> `items[2].description` */
export function pointerToParam(pointer: string): string {
  let out = '';
  for (const raw of pointer.split('/').slice(1)) {
    const seg = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    out += /^\d+$/.test(seg) ? `[${seg}]` : out === '' ? seg : `.${seg}`;
  }
  return out;
}

function join(base: string, key: string): string {
  return base === '' ? key : `${base}.${key}`;
}

/** Turns the first AJV failure into the Stripe-style error a client can act on. */
export function validationError(errors: AjvError[], part: string): ApiError {
  // Prefer the most specific failure: a missing or unknown field beats a generic type error.
  // An anyOf failure is reported once, as a whole, rather than as its first branch's complaint.
  const e =
    errors.find((x) => x.keyword === 'required') ??
    errors.find((x) => x.keyword === 'additionalProperties') ??
    errors.find((x) => x.keyword === 'anyOf') ??
    errors[0];
  if (e === undefined) return new ApiError('parameter_invalid', `Invalid ${part}.`);
  const base = pointerToParam(e.instancePath);
  if (e.keyword === 'required') {
    const param = join(base, String(e.params.missingProperty));
    return new ApiError('parameter_missing', `Missing required parameter: ${param}.`, param);
  }
  if (e.keyword === 'additionalProperties') {
    const param = join(base, String(e.params.additionalProperty));
    return new ApiError('parameter_unknown', `Received unknown parameter: ${param}.`, param);
  }
  if (base === '' && e.keyword === 'type' && part === 'body') {
    return new ApiError('parameter_invalid', 'The request body must be a JSON object.');
  }
  if (e.propertyName !== undefined) {
    return new ApiError('parameter_invalid', `Invalid ${base}: key '${e.propertyName}' ${describe(e)}.`, base);
  }
  // A value inside a free-form map (metadata): the map is the parameter, the key is named in the message.
  if (e.schemaPath?.includes('/additionalProperties/anyOf')) {
    const segments = e.instancePath.split('/');
    const key = (segments.pop() ?? '').replace(/~1/g, '/').replace(/~0/g, '~');
    const map = pointerToParam(segments.join('/'));
    return new ApiError('parameter_invalid', `Invalid ${map}: the value of key '${key}' ${describe(e)}.`, map);
  }
  const param = base === '' ? undefined : base;
  const detail = nullableDetail(e, errors) ?? describe(e);
  return new ApiError(
    'parameter_invalid',
    param ? `Invalid ${param}: ${detail}.` : `Invalid ${part}: ${detail}.`,
    param,
  );
}

/**
 * Every failure of a body, one per parameter: a bulk import shows all of a row's problems at once,
 * where the API answers with the first. Each parameter's errors are read as `validationError` reads
 * a body's, so a row with one problem gets the API's very message. AJV with `allErrors` reports
 * each branch of a failed anyOf beside the anyOf itself: they belong to the anyOf's parameter.
 */
export function validationErrors(errors: AjvError[], part: string): ApiError[] {
  // Outermost first: a branch inside nested anyOfs belongs to the outer one's parameter.
  const anyOfs = errors
    .filter((e) => e.keyword === 'anyOf' && e.schemaPath)
    .sort((a, b) => (a.schemaPath?.length ?? 0) - (b.schemaPath?.length ?? 0));
  const byParam = new Map<string, AjvError[]>();
  for (const e of errors) {
    const outer = anyOfs.find((a) => e.schemaPath?.startsWith(`${a.schemaPath}/`));
    const named = e.params.missingProperty ?? e.params.additionalProperty;
    const key = outer
      ? outer.instancePath
      : named === undefined
        ? e.instancePath
        : `${e.instancePath}/${String(named)}`;
    byParam.set(key, [...(byParam.get(key) ?? []), e]);
  }
  return [...byParam.values()].map((es) => validationError(es, part));
}

/**
 * A nullable field (`X or null`) that got a value X refuses: X's own complaint, "must be >= 0, or
 * null", rather than the anyOf's "does not match any allowed type".
 */
function nullableDetail(e: AjvError, errors: AjvError[]): string | undefined {
  const branches = e.keyword === 'anyOf' ? e.parentSchema?.anyOf : undefined;
  if (branches?.length !== 2 || !e.schemaPath) return undefined;
  const valued = branches.findIndex((b) => b.type !== 'null');
  if (valued < 0 || branches[1 - valued]?.type !== 'null') return undefined;
  const inner = errors.find((x) => x.schemaPath?.startsWith(`${e.schemaPath}/${valued}/`));
  return inner ? `${describe(inner)}, or null` : undefined;
}

function describe(e: AjvError): string {
  switch (e.keyword) {
    case 'type':
      return `must be of type ${String(e.params.type).replace(',', ' or ')}`;
    case 'enum':
      return `must be one of ${(e.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
    case 'const':
      return `must be ${JSON.stringify(e.params.allowedValue)}`;
    case 'minLength':
      return e.params.limit === 1 ? 'must not be empty' : `must be at least ${e.params.limit} characters`;
    case 'maxLength':
      return `must be at most ${e.params.limit} characters`;
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return `must be ${e.params.comparison} ${e.params.limit}`;
    case 'maxItems':
      return `must have at most ${e.params.limit} entries`;
    case 'minItems':
      return `must have at least ${e.params.limit} entries`;
    case 'maxProperties':
      return `must have at most ${e.params.limit} keys`;
    case 'format':
      return FORMATS[String(e.params.format)] ?? `must be a valid ${e.params.format}`;
    case 'pattern':
      return PATTERNS[String(e.params.pattern)] ?? `has the wrong format${expected(e)}`;
    case 'anyOf':
      return e.parentSchema?.description ? `must be ${e.parentSchema.description}` : 'does not match any allowed type';
    case 'propertyNames':
      return 'has a key that is too long';
    default:
      return e.message ?? 'is invalid';
  }
}

/**
 * What each format asks for, in words. The field's description (the OpenAPI text, "The local day;
 * default: today") used to follow in brackets, and read as "must be a valid date (expected The
 * local day; default: today)".
 */
const FORMATS: Record<string, string> = {
  date: 'must be a calendar day, YYYY-MM-DD',
  'date-time': 'must be a date and time with its offset, like 2026-12-07T09:30:00-05:00',
  email: 'must be an email address',
  uri: 'must be a URL',
  currency: 'must be an ISO 4217 currency code, like PEN',
};

/**
 * What each pattern asks for, in words, as FORMATS does for formats. The field's description in
 * brackets read as "has the wrong format (expected The carrier (operator keys, admins,
 * dispatchers): one account's orders. …)" for `?account=ord_1`. A pattern not listed here falls
 * back to the description.
 */
const PATTERNS: Record<string, string> = {
  '^acct_[A-Za-z0-9]+$': 'must be an account id: acct_ then letters and digits',
  '^[0-9]{4}$': 'must be 4 digits',
  '^\\+[0-9]{8,15}$': 'must be an E.164 phone number: + then 8 to 15 digits, like +51987654321',
  '^([01][0-9]|2[0-3]):[0-5][0-9]$': 'must be a time of day, HH:mm from 00:00 to 23:59',
  '^[A-Z]{3}$': 'must be an ISO 4217 currency code in capitals, like PEN',
  '^[A-Z]{2}$': 'must be an ISO 3166-1 alpha-2 country code in capitals, like PE',
  '^#[0-9a-fA-F]{6}$': 'must be a colour, #rrggbb',
  '^[a-z0-9_-]+$': 'must be lower-case letters, digits, _ and - only',
  '^(?:HX[0-9a-f]{32}|[a-z0-9_]{1,512})$':
    'must be a Twilio content SID (HX then 32 hex digits) or a template name of lower-case letters, digits and _',
};

function expected(e: AjvError): string {
  return e.parentSchema?.description ? ` (expected ${e.parentSchema.description})` : '';
}
