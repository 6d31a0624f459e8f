import type { Res, TestApp } from './helpers.js';
import { client, newOperator, validOrder } from './helpers.js';
import { tinyPng, upload } from './lifecycle-helpers.js';
import { PASSWORD, type PeopleFixture } from './people-helpers.js';

/**
 * The endpoint table of the bad-input corpus (test/corpus-suite.ts). Every operation of the
 * OpenAPI document must have a row here: the corpus fails on an operation it does not know.
 */

export interface Fixture {
  order: { id: string; tracking_code: string };
  courier: { id: string };
  route: { id: string };
  file: { id: string; url: string };
  endpoint: { id: string };
  event: { id: string };
  /** The order's order_confirmed email: suppressed (test mode), but a message all the same. */
  message?: { id: string };
  orderImport: { id: string };
  /** An order no courier can take (it requires a skill none has): dispatching it is 409 whoever is on duty. */
  unfit: { id: string };
  /** The carrier's depot, and a route plan of it already committed (made with an operator key). */
  depot: { id: string };
  routePlan: { id: string };
  /** Sessions, users, keys, invitations and codes: made by the corpus for the rows that need them. */
  people?: PeopleFixture;
  /** The merchant's account, and a draft settlement of its own (new with every fixture: rows issue and delete it). */
  account: { id: string };
  settlement: { id: string };
  /** A cash handover of the fixture's courier, recorded by the carrier (new with every fixture: a row voids it). */
  handover: { id: string };
}

/** The people part of a fixture, for rows that name it (the corpus always makes it). */
const pp = (f: Fixture): PeopleFixture => {
  if (!f.people) throw new Error('this row needs fixture.people');
  return f.people;
};
/** The fixture's message (the corpus's fixtures always have one). */
const messageOf = (f: Fixture): string => {
  if (!f.message) throw new Error('this row needs fixture.message');
  return f.message.id;
};
let emails = 0;
const uniqueEmail = () => {
  emails += 1;
  return `corpus${emails}-${Math.random().toString(36).slice(2, 8)}@example.com`;
};

export type FieldKind = 'string' | 'integer' | 'number' | 'boolean' | 'array' | 'object';
/** [path in the body, JSON kind, further values that are wrong for this field, whether null is allowed] */
export type Field = [path: string, kind: FieldKind, extraBad: unknown[], nullable?: boolean];

/** Issue #21's constraint fields of a courier (create and update), all nullable. */
const COURIER_CONSTRAINT_FIELDS: Field[] = [
  ['skills', 'array', [['Cold'], [''], ['cold', 'cold']], true],
  [
    'break',
    'object',
    [
      { earliest: '12:00' },
      { earliest: '14:00', latest: '12:00', duration_min: 30 },
      { earliest: '25:00', latest: '26:00', duration_min: 30 },
    ],
    true,
  ],
  ['max_route_minutes', 'integer', [0, 1441, 1.5], true],
  ['max_route_km', 'number', [-1, 10_001], true],
  ['max_stops', 'integer', [0, 2001], true],
  ['route_end', 'string', ['', 'home'], true],
];
/** [query string, the param named by the 422, its code] */
export type QueryCase = [qs: string, param: string, code: string];

export interface Endpoint {
  /** The OpenAPI operation, `METHOD /path/{param}`. */
  route: string;
  name: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: (f: Fixture) => string;
  /** `required`: a JSON object with required fields; `optional`: may be absent; `raw`: bytes (`rawBody`, else a PNG). */
  body: 'none' | 'required' | 'optional' | 'raw';
  /** The well-formed raw body and its Content-Type, when it is not an image. */
  rawBody?: () => { payload: string | Buffer; type: string };
  /** Status of a well-formed call with a fresh fixture. */
  ok: number;
  /** A well-formed body, when the endpoint takes one. */
  valid?: (f: Fixture) => Record<string, unknown>;
  /** The id in the path that is looked up (odd ids in its place are 404). */
  id?: (f: Fixture) => string;
  /** The prefix of that id, for a well-formed id that names nothing. */
  prefix?: string;
  /**
   * `key`: called with the merchant's test key (else 401); `admin`: with an admin's session cookie
   * and CSRF token; `courier`: with a courier's session; `none`: public.
   */
  auth: 'key' | 'admin' | 'courier' | 'none';
  /** Errors are HTML pages rather than the Error body (the /track page). */
  html?: boolean;
  /** Bad query strings (422 with the param), when the query is validated strictly. */
  query?: QueryCase[];
  /** Harmless query strings that still answer 200. */
  okQueries?: string[];
  /** The body's fields and their bad values. */
  fields?: Field[];
  /** An endless Server-Sent Events response: a well-formed call is opened over HTTP and closed, never injected. */
  stream?: boolean;
}

const s500 = 'x'.repeat(501);
/** A one-order CSV for the import rows. */
export const IMPORT_CSV = 'external_order_id,customer_name,address\r\nCSV-1,Ana,Av. Larco 1\r\n';
const id101 = 'x'.repeat(101);

/**
 * An integer query parameter takes plain decimal digits only: AJV's coercion (`Number()`) would read
 * these as 16, 10, 5, 5, 5 and 10 (src/shared/validation.ts, `plainNumbers`).
 */
function notPlainInteger(param: string): QueryCase[] {
  return ['0x10', '1e1', '%2B5', '%205', '5.0', '0b1010'].map((v) => [`${param}=${v}`, param, 'parameter_invalid']);
}

/** Query cases every keyset-paginated list shares. */
const LIST_QUERY: QueryCase[] = [
  ...notPlainInteger('limit'),
  ['zzz=1', 'zzz', 'parameter_unknown'],
  ['limit=0', 'limit', 'parameter_invalid'],
  ['limit=101', 'limit', 'parameter_invalid'],
  ['limit=-1', 'limit', 'parameter_invalid'],
  ['limit=1.5', 'limit', 'parameter_invalid'],
  ['limit=abc', 'limit', 'parameter_invalid'],
  ['limit=', 'limit', 'parameter_invalid'],
  ['limit=1e400', 'limit', 'parameter_invalid'],
  ['limit=1&limit=2', 'limit', 'parameter_invalid'],
  [`starting_after=${id101}`, 'starting_after', 'parameter_invalid'],
  ['starting_after=%00', 'starting_after', 'parameter_invalid'],
];

const ORDERS_QUERY: QueryCase[] = [
  ['status=nope', 'status', 'parameter_invalid'],
  ['status=PENDING', 'status', 'parameter_invalid'],
  ['status=pending&status=failed', 'status', 'parameter_invalid'],
  ['source=x', 'source', 'parameter_invalid'],
  ['starting_after=ord_nope', 'starting_after', 'parameter_invalid'],
  ['ending_before=nope', 'ending_before', 'parameter_invalid'],
  ['external_order_id=a%00b', 'external_order_id', 'parameter_invalid'],
  ['created_gte=yesterday', 'created_gte', 'parameter_invalid'],
  ['created_lt=1700000000', 'created_lt', 'parameter_invalid'],
  ['account=acct_x-y', 'account', 'parameter_invalid'],
  ...notPlainInteger('rating'),
  ['cod_status=nope', 'cod_status', 'parameter_invalid'],
  ['cod_status=SHORT', 'cod_status', 'parameter_invalid'],
  ['cod_status=short&cod_status=over', 'cod_status', 'parameter_invalid'],
  ['due_gte=today', 'due_gte', 'parameter_invalid'],
  ['due_lt=2026-13-01T00:00:00Z', 'due_lt', 'parameter_invalid'],
  ['due_on=2026-02-30', 'due_on', 'parameter_invalid'],
  ['due_on=2026-11-25T00:00:00Z', 'due_on', 'parameter_invalid'],
  ['search=', 'search', 'parameter_invalid'],
  ['search=%20%20', 'search', 'parameter_invalid'],
  [`search=${'x'.repeat(101)}`, 'search', 'parameter_invalid'],
];

/** GET /v1/orders/counts takes the list's filters, but neither paging nor status (it counts every status). */
const COUNTS_QUERY: QueryCase[] = [
  ['zzz=1', 'zzz', 'parameter_unknown'],
  ['limit=5', 'limit', 'parameter_unknown'],
  ['status=pending', 'status', 'parameter_unknown'],
  ['starting_after=ord_x', 'starting_after', 'parameter_unknown'],
  ...ORDERS_QUERY.filter(([, param]) => !['status', 'starting_after', 'ending_before'].includes(param)),
];

const TIME_WINDOW_FIELDS: Field[] = [
  ['time_window', 'object', [{ start: '09:00' }, { end: '10:00' }, { start: '12:00', end: '09:00' }]],
  ['time_window.start', 'string', ['9:00', '24:00', '09:60', '0900']],
  ['time_window.end', 'string', ['08:00', '09:00', '25:00']],
];

const URL_FIELD: Field = ['url', 'string', ['', 'x'.repeat(2049), 'not a url', 'ftp://example.com/x']];
const EVENTS_FIELDS: Field[] = [
  ['events', 'array', [[], Array.from({ length: 101 }, () => '*')]],
  ['events[0]', 'string', ['', 'order.nope', 'ORDER.CREATED', 'x'.repeat(101)]],
];

/** A move's row: `POST /v1/orders/{id}/<action>`, answered 200 from pending or 409 invalid_transition. */
function move(
  action: string,
  ok: number,
  body: Endpoint['body'],
  valid?: Endpoint['valid'],
  fields?: Field[],
): Endpoint {
  return {
    route: `POST /v1/orders/{id}/${action}`,
    name: action,
    method: 'POST',
    path: (f) => `/v1/orders/${f.order.id}/${action}`,
    body,
    ok,
    valid,
    id: (f) => f.order.id,
    prefix: 'ord',
    auth: 'key',
    fields,
  };
}

const orderRow = (over: Partial<Endpoint> & Pick<Endpoint, 'route' | 'name' | 'path'>): Endpoint => ({
  method: 'GET',
  body: 'none',
  ok: 200,
  id: (f) => f.order.id,
  prefix: 'ord',
  auth: 'key',
  ...over,
});

export const ENDPOINTS: Endpoint[] = [
  // Orders
  {
    route: 'POST /v1/orders',
    name: 'create order',
    method: 'POST',
    path: () => '/v1/orders',
    body: 'required',
    ok: 201,
    valid: () => validOrder(),
    auth: 'key',
  },
  {
    route: 'POST /v1/orders/quote',
    name: 'quote',
    method: 'POST',
    path: () => '/v1/orders/quote',
    body: 'required',
    ok: 200,
    valid: () => validOrder(),
    auth: 'key',
  },
  {
    route: 'GET /v1/orders',
    name: 'list orders',
    method: 'GET',
    path: () => '/v1/orders',
    body: 'none',
    ok: 200,
    auth: 'key',
    query: [...LIST_QUERY, ...ORDERS_QUERY],
    okQueries: ['', 'limit=100', 'external_order_id=%F0%9F%98%80', "external_order_id='%20OR%201=1"],
  },
  {
    route: 'GET /v1/orders/counts',
    name: 'count orders',
    method: 'GET',
    path: () => '/v1/orders/counts',
    body: 'none',
    ok: 200,
    auth: 'key',
    query: COUNTS_QUERY,
    okQueries: [
      '',
      'search=%F0%9F%98%80',
      "search='%20OR%201=1",
      'search=%25',
      'due_gte=2026-01-01T00:00:00-05:00',
      'due_on=2026-11-25',
    ],
  },
  orderRow({ route: 'GET /v1/orders/{id}', name: 'read order', path: (f) => `/v1/orders/${f.order.id}` }),
  orderRow({
    route: 'GET /v1/orders/{id}',
    name: 'read order by tracking code',
    path: (f) => `/v1/orders/${f.order.tracking_code}`,
    id: (f) => f.order.tracking_code,
  }),
  orderRow({
    route: 'GET /v1/orders/{id}/label.pdf',
    name: 'order label',
    path: (f) => `/v1/orders/${f.order.id}/label.pdf`,
  }),
  orderRow({
    route: 'POST /v1/orders/{id}/load',
    name: 'load (the fixture order is pending: no courier to load it)',
    method: 'POST',
    path: (f) => `/v1/orders/${f.order.id}/load`,
    body: 'optional',
    valid: () => ({}),
    ok: 409,
  }),
  orderRow({
    route: 'GET /v1/orders/{id}/tracking',
    name: 'tracking',
    path: (f) => `/v1/orders/${f.order.id}/tracking`,
  }),
  orderRow({
    route: 'GET /v1/orders/{id}/proof',
    name: 'proof',
    path: (f) => `/v1/orders/${f.order.id}/proof`,
    ok: 404,
  }),
  orderRow({
    route: 'POST /v1/orders/{id}/cancel',
    name: 'cancel',
    method: 'POST',
    path: (f) => `/v1/orders/${f.order.id}/cancel`,
    body: 'optional',
    valid: () => ({ reason: 'corpus' }),
    fields: [['reason', 'string', [s500]]],
  }),

  // Lifecycle moves, each from a pending order
  move('validate', 200, 'optional'),
  move('assign', 200, 'required', (f) => ({ courier_id: f.courier.id }), [
    ['courier_id', 'string', ['', id101]],
    ['route_id', 'string', ['', id101]],
  ]),
  move('ready', 409, 'optional'),
  move('pickup', 409, 'optional'),
  move('depart', 409, 'optional'),
  move('approach', 409, 'optional'),
  move('arrive', 409, 'optional'),
  move('deliver', 409, 'required', () => ({ receiver_name: 'Ana' }), [
    ['receiver_name', 'string', ['', s500]],
    ['receiver_document', 'string', [s500]],
    ['relationship', 'string', ['x', 'SELF', '']],
    ['signature_file', 'string', ['', id101]],
    ['photo_files', 'array', [Array.from({ length: 21 }, () => 'file_x')]],
    ['photo_files[0]', 'string', ['', id101]],
    ['collected_amount', 'number', [-0.01, 1e15]],
    ['payment_method', 'string', ['x', 'CASH']],
    ['delivered_packages', 'integer', [0, -1, 1.5]],
    ['lat', 'number', [90.5, -91]],
    ['lng', 'number', [180.5, -181]],
    ['pin', 'string', ['', '123', '12345', 'abcd', '１２３４']],
    ['id_document', 'object', [{ type: 'dni', number: '1' }, { type: 'passport', number: '' }, { type: 'passport' }]],
    ['age_verified', 'boolean', []],
  ]),
  // The fixture's order has no PIN: 409 pin_not_locked (test/delivery-pin.test.ts runs the real thing).
  move('pin_override', 409, 'required', () => ({ reason: 'corpus' }), [['reason', 'string', ['', s500]]]),
  move('fail', 409, 'required', () => ({ reason: 'customer_absent' }), [
    ['reason', 'string', ['', 'x', 'CUSTOMER_ABSENT']],
    ['notes', 'string', [s500]],
  ]),
  move(
    'reschedule',
    200,
    'required',
    () => ({ requested_date: '2030-01-02T15:00:00Z', time_window: { start: '09:00', end: '12:00' } }),
    [['requested_date', 'string', ['', 'tomorrow', '2030-02-30', '2030-13-02T15:00:00Z']], ...TIME_WINDOW_FIELDS],
  ),
  move('return', 409, 'optional', () => ({ notes: 'corpus' }), [['notes', 'string', [s500]]]),

  // Couriers
  {
    route: 'POST /v1/couriers',
    name: 'create courier',
    method: 'POST',
    path: () => '/v1/couriers',
    body: 'required',
    ok: 201,
    valid: () => ({ name: 'Luis', phone: '+51999888777', vehicle: 'bicycle' }),
    auth: 'key',
    fields: [
      ['name', 'string', ['', 'x'.repeat(201)]],
      ['phone', 'string', ['', '999888777', '+1234567', '+51 999 888 777']],
      ['vehicle', 'string', ['', 'rocket', 'CAR']],
      ...COURIER_CONSTRAINT_FIELDS,
    ],
  },
  {
    route: 'GET /v1/couriers',
    name: 'list couriers',
    method: 'GET',
    path: () => '/v1/couriers',
    body: 'none',
    ok: 200,
    auth: 'key',
    query: LIST_QUERY,
    okQueries: ['', 'limit=100', 'limit=1'],
  },
  {
    route: 'GET /v1/couriers/{id}',
    name: 'read courier',
    method: 'GET',
    path: (f) => `/v1/couriers/${f.courier.id}`,
    body: 'none',
    ok: 200,
    id: (f) => f.courier.id,
    prefix: 'cou',
    auth: 'key',
  },
  {
    route: 'PATCH /v1/couriers/{id}',
    name: 'update courier',
    method: 'PATCH',
    path: (f) => `/v1/couriers/${f.courier.id}`,
    body: 'optional',
    ok: 200,
    valid: () => ({ name: 'Luis P.', phone: null, vehicle: 'car' }),
    id: (f) => f.courier.id,
    prefix: 'cou',
    auth: 'key',
    fields: [
      ['name', 'string', ['', 'x'.repeat(201)]],
      ['phone', 'string', ['', '12'], true],
      ['vehicle', 'string', ['', 'rocket'], true],
      ...COURIER_CONSTRAINT_FIELDS,
    ],
  },
  {
    route: 'POST /v1/couriers/{id}/location',
    name: 'courier location',
    method: 'POST',
    path: (f) => `/v1/couriers/${f.courier.id}/location`,
    body: 'required',
    ok: 200,
    valid: () => ({ lat: -12.1, lng: -77.03 }),
    id: (f) => f.courier.id,
    prefix: 'cou',
    auth: 'key',
    fields: [
      ['lat', 'number', [90.0001, -90.0001, 1e308]],
      ['lng', 'number', [180.0001, -180.0001]],
      [
        'recorded_at',
        'string',
        ['', 'now', '2025-07-01', '1700000000', '2999-01-01T00:00:00Z', '2000-01-01T00:00:00Z'],
      ],
    ],
  },
  {
    route: 'POST /v1/couriers/{id}/locations',
    name: 'courier locations batch',
    method: 'POST',
    path: (f) => `/v1/couriers/${f.courier.id}/locations`,
    body: 'required',
    ok: 200,
    // Fixes from just now: a point before the courier existed, or a week old, is refused (issue 18 #11).
    valid: () => ({
      points: [
        { lat: -12.1, lng: -77.03, recorded_at: new Date(Date.now() - 5000).toISOString() },
        { lat: -12.2, lng: -77.04, recorded_at: new Date().toISOString(), accuracy_m: 8, speed_mps: 4, heading: 90 },
      ],
    }),
    id: (f) => f.courier.id,
    prefix: 'cou',
    auth: 'key',
    fields: [
      [
        'points',
        'array',
        [[], Array.from({ length: 101 }, () => ({ lat: 0, lng: 0, recorded_at: '2025-07-01T10:00:00Z' }))],
      ],
      ['points[0]', 'object', []],
      ['points[1].lat', 'number', [90.0001, -90.0001, 1e308]],
      ['points[1].lng', 'number', [180.0001, -180.0001]],
      ['points[1].recorded_at', 'string', ['', 'now', '2025-07-01', '2999-01-01T00:00:00Z', '2025-07-01T09:00:00Z']],
      ['points[0].recorded_at', 'string', ['2000-01-01T00:00:00Z']],
      ['points[1].accuracy_m', 'number', [-1]],
      ['points[1].speed_mps', 'number', [-1]],
      ['points[1].heading', 'number', [-1, 360.5]],
    ],
  },
  {
    route: 'GET /v1/couriers/{id}/locations',
    name: 'courier locations',
    method: 'GET',
    path: (f) => `/v1/couriers/${f.courier.id}/locations`,
    body: 'none',
    ok: 200,
    id: (f) => f.courier.id,
    prefix: 'cou',
    auth: 'key',
  },
  {
    route: 'GET /v1/couriers/{id}/done_today',
    name: 'courier done today',
    method: 'GET',
    path: (f) => `/v1/couriers/${f.courier.id}/done_today`,
    body: 'none',
    ok: 200,
    id: (f) => f.courier.id,
    prefix: 'cou',
    auth: 'key',
  },

  // Routes
  {
    route: 'POST /v1/routes',
    name: 'create route',
    method: 'POST',
    path: () => '/v1/routes',
    body: 'required',
    ok: 201,
    valid: (f) => ({ courier_id: f.courier.id, order_ids: [f.order.id], date: '2030-01-02' }),
    auth: 'key',
    fields: [
      ['courier_id', 'string', ['', id101]],
      ['order_ids', 'array', [[], ['ord_a', 'ord_a'], Array.from({ length: 201 }, (_, i) => `ord_${i}`)]],
      ['order_ids[0]', 'string', ['', id101]],
      ['date', 'string', ['', 'tomorrow', '2030-13-01', '2030-01-02T00:00:00Z']],
    ],
  },
  {
    route: 'GET /v1/routes',
    name: 'list routes',
    method: 'GET',
    path: () => '/v1/routes',
    body: 'none',
    ok: 200,
    auth: 'key',
    query: [
      ...LIST_QUERY,
      ['date=2026-13-01', 'date', 'parameter_invalid'],
      ['date=tomorrow', 'date', 'parameter_invalid'],
      [`courier=${id101}`, 'courier', 'parameter_invalid'],
    ],
    okQueries: ['', 'limit=100', 'date=2026-11-25', 'courier=cou_nope', "courier='%20OR%201=1"],
  },
  {
    route: 'GET /v1/routes/{id}',
    name: 'read route',
    method: 'GET',
    path: (f) => `/v1/routes/${f.route.id}`,
    body: 'none',
    ok: 200,
    id: (f) => f.route.id,
    prefix: 'rte',
    auth: 'key',
  },
  {
    route: 'GET /v1/routes/{id}/labels.pdf',
    name: 'route labels',
    method: 'GET',
    path: (f) => `/v1/routes/${f.route.id}/labels.pdf`,
    body: 'none',
    ok: 200,
    id: (f) => f.route.id,
    prefix: 'rte',
    auth: 'key',
  },

  // Files
  {
    route: 'POST /v1/files',
    name: 'upload file',
    method: 'POST',
    path: () => '/v1/files?purpose=photo',
    body: 'raw',
    ok: 201,
    auth: 'key',
  },
  {
    route: 'GET /v1/files/{id}',
    name: 'read file',
    method: 'GET',
    path: (f) => `/v1/files/${f.file.id}`,
    body: 'none',
    ok: 200,
    id: (f) => f.file.id,
    prefix: 'file',
    auth: 'key',
  },
  {
    route: 'GET /v1/files/{id}/content',
    name: 'file content',
    method: 'GET',
    path: (f) => f.file.url.replace(/^https?:\/\/[^/]+/, ''),
    body: 'none',
    ok: 200,
    auth: 'none',
  },

  // Webhook endpoints
  {
    route: 'POST /v1/webhook_endpoints',
    name: 'create webhook endpoint',
    method: 'POST',
    path: () => '/v1/webhook_endpoints',
    body: 'required',
    ok: 201,
    valid: () => ({ url: 'http://127.0.0.1:9/hook', events: ['*'], description: 'corpus' }),
    auth: 'key',
    fields: [URL_FIELD, ...EVENTS_FIELDS, ['description', 'string', [s500]]],
  },
  {
    route: 'GET /v1/webhook_endpoints',
    name: 'list webhook endpoints',
    method: 'GET',
    path: () => '/v1/webhook_endpoints',
    body: 'none',
    ok: 200,
    auth: 'key',
    query: [
      ...LIST_QUERY,
      ['starting_after=we_nope', 'starting_after', 'parameter_invalid'],
      ['status=paused', 'status', 'parameter_invalid'],
      // Not an account id's shape: 422 for every caller (another account's id is a merchant's 403).
      ['account=acct_x-y', 'account', 'parameter_invalid'],
    ],
    okQueries: ['', 'limit=100', 'status=disabled'],
  },
  {
    route: 'GET /v1/webhook_deliveries',
    name: 'list failed webhook deliveries',
    method: 'GET',
    // status is required (failed is the one value so far); the corpus adds its cases after it.
    path: () => '/v1/webhook_deliveries?status=failed',
    body: 'none',
    ok: 200,
    auth: 'key',
    query: [
      ...LIST_QUERY,
      ['starting_after=del_nope', 'starting_after', 'parameter_invalid'],
      ['status=pending', 'status', 'parameter_invalid'],
      ['endpoint=', 'endpoint', 'parameter_invalid'],
      ['account=acct_x-y', 'account', 'parameter_invalid'],
    ],
    okQueries: ['', 'limit=100', 'endpoint=we_nope'],
  },
  ...(['GET', 'PATCH', 'DELETE'] as const).map(
    (method): Endpoint => ({
      route: `${method} /v1/webhook_endpoints/{id}`,
      name: `${method.toLowerCase()} webhook endpoint`,
      method,
      path: (f) => `/v1/webhook_endpoints/${f.endpoint.id}`,
      body: method === 'PATCH' ? 'optional' : 'none',
      ok: 200,
      id: (f) => f.endpoint.id,
      prefix: 'we',
      auth: 'key',
      ...(method === 'PATCH'
        ? {
            valid: () => ({ events: ['order.created'], description: null, status: 'disabled' }),
            fields: [
              URL_FIELD,
              ...EVENTS_FIELDS,
              ['description', 'string', [s500], true],
              ['status', 'string', ['', 'paused', 'ENABLED']],
            ] as Field[],
          }
        : {}),
    }),
  ),
  ...(['rotate_secret', 'test'] as const).map(
    (action): Endpoint => ({
      route: `POST /v1/webhook_endpoints/{id}/${action}`,
      name: `webhook endpoint ${action}`,
      method: 'POST',
      path: (f) => `/v1/webhook_endpoints/${f.endpoint.id}/${action}`,
      body: 'optional',
      ok: action === 'test' ? 202 : 200,
      id: (f) => f.endpoint.id,
      prefix: 'we',
      auth: 'key',
    }),
  ),
  {
    route: 'GET /v1/webhook_endpoints/{id}/deliveries',
    name: 'webhook endpoint deliveries',
    method: 'GET',
    path: (f) => `/v1/webhook_endpoints/${f.endpoint.id}/deliveries`,
    body: 'none',
    ok: 200,
    id: (f) => f.endpoint.id,
    prefix: 'we',
    auth: 'key',
    query: [
      ...LIST_QUERY.filter(([qs]) => !qs.startsWith('starting_after')),
      ['starting_after=0', 'starting_after', 'parameter_invalid'],
      ['starting_after=abc', 'starting_after', 'parameter_invalid'],
      ['starting_after=1.5', 'starting_after', 'parameter_invalid'],
      ['starting_after=9223372036854775296', 'starting_after', 'parameter_invalid'],
      ['starting_after=whatt_nope', 'starting_after', 'parameter_invalid'],
      ['event=%00', 'event', 'parameter_invalid'],
      [`event=${id101}`, 'event', 'parameter_invalid'],
    ],
    okQueries: ['', 'limit=100', 'event=evt_nope'],
  },

  // Customer messages (DESIGN §14)
  {
    route: 'GET /v1/notification_settings',
    name: 'read notification settings',
    method: 'GET',
    path: () => '/v1/notification_settings',
    body: 'none',
    ok: 200,
    auth: 'key',
    query: [
      ['account=ord_1', 'account', 'parameter_invalid'],
      ['account=acct_%00', 'account', 'parameter_invalid'],
      [`account=acct_${id101}`, 'account', 'parameter_invalid'],
    ],
    okQueries: [''],
  },
  {
    route: 'PUT /v1/notification_settings',
    name: 'update notification settings',
    method: 'PUT',
    path: () => '/v1/notification_settings',
    body: 'optional',
    ok: 200,
    valid: () => ({ locale: 'es' }),
    auth: 'key',
    fields: [
      ['locale', 'string', ['fr', 'ES']],
      ['sender_name', 'string', ['', 'x'.repeat(101)], true],
      ['default_country', 'string', ['pe', 'PER'], true],
      [
        'quiet_hours',
        'object',
        [
          { start: '25:00', end: '08:00' },
          { start: '08:00', end: '08:00' },
        ],
        true,
      ],
      ['triggers', 'object', [{ nope: {} }, { delivered: { fax: true } }]],
      ['templates', 'object', [{ delivered: { sms: { es: { body: '{{nope}}' } } } }]],
    ],
  },
  // Proof settings (DESIGN §14): the same owners as the notification settings.
  {
    route: 'GET /v1/proof_settings',
    name: 'read proof settings',
    method: 'GET',
    path: () => '/v1/proof_settings',
    body: 'none',
    ok: 200,
    auth: 'key',
    query: [
      ['account=ord_1', 'account', 'parameter_invalid'],
      ['account=acct_%00', 'account', 'parameter_invalid'],
      [`account=acct_${id101}`, 'account', 'parameter_invalid'],
    ],
    okQueries: [''],
  },
  {
    route: 'PUT /v1/proof_settings',
    name: 'update proof settings',
    method: 'PUT',
    path: () => '/v1/proof_settings',
    body: 'optional',
    ok: 200,
    valid: () => ({ photo: 'optional' }),
    auth: 'key',
    fields: [
      ['signature', 'string', ['', 'REQUIRED', 'always']],
      ['photo', 'string', ['on']],
      ['pin', 'string', ['yes']],
      ['id_check', 'string', ['true']],
      ['age_check', 'string', ['18']],
    ],
  },
  {
    route: 'POST /v1/notification_settings/preview',
    name: 'preview notification',
    method: 'POST',
    path: () => '/v1/notification_settings/preview',
    body: 'required',
    ok: 200,
    valid: () => ({ trigger: 'delivered', channel: 'sms' }),
    auth: 'key',
    fields: [
      ['trigger', 'string', ['nope', '']],
      ['channel', 'string', ['fax']],
      ['locale', 'string', ['fr']],
      ['template', 'object', [{ body: '' }, { body: 'x', zzz: 1 }]],
    ],
  },
  {
    route: 'GET /v1/messages',
    name: 'list messages',
    method: 'GET',
    path: () => '/v1/messages',
    body: 'none',
    ok: 200,
    auth: 'key',
    query: [
      ...LIST_QUERY,
      ['channel=fax', 'channel', 'parameter_invalid'],
      ['status=nope', 'status', 'parameter_invalid'],
      [`order=${id101}`, 'order', 'parameter_invalid'],
      ['starting_after=msg_nope', 'starting_after', 'parameter_invalid'],
      ['trigger=nope', 'trigger', 'parameter_invalid'],
      ['account=ord_1', 'account', 'parameter_invalid'],
      [`account=acct_${id101}`, 'account', 'parameter_invalid'],
    ],
    okQueries: ['', 'limit=100', 'channel=sms', 'status=suppressed', 'order=ord_nope', 'trigger=delivered'],
  },
  {
    route: 'GET /v1/messages/{id}',
    name: 'read message',
    method: 'GET',
    path: (f) => `/v1/messages/${messageOf(f)}`,
    body: 'none',
    ok: 200,
    id: messageOf,
    prefix: 'msg',
    auth: 'key',
  },

  // Events
  {
    route: 'GET /v1/events',
    name: 'list events',
    method: 'GET',
    path: () => '/v1/events',
    body: 'none',
    ok: 200,
    auth: 'key',
    query: [
      ...LIST_QUERY,
      ['delivery_success=maybe', 'delivery_success', 'parameter_invalid'],
      ['delivery_success=', 'delivery_success', 'parameter_invalid'],
      [`event=${id101}`, 'event', 'parameter_invalid'],
      [`order=${id101}`, 'order', 'parameter_invalid'],
      ['order=%00', 'order', 'parameter_invalid'],
    ],
    okQueries: ['', 'limit=100', 'delivery_success=false', 'delivery_success=true', 'event=order.created'],
  },
  {
    route: 'GET /v1/events/{id}',
    name: 'read event',
    method: 'GET',
    path: (f) => `/v1/events/${f.event.id}`,
    body: 'none',
    ok: 200,
    id: (f) => f.event.id,
    prefix: 'evt',
    auth: 'key',
  },
  {
    route: 'POST /v1/events/{id}/redeliver',
    name: 'redeliver event',
    method: 'POST',
    path: (f) => `/v1/events/${f.event.id}/redeliver`,
    body: 'optional',
    ok: 202,
    valid: (f) => ({ endpoint: f.endpoint.id }),
    id: (f) => f.event.id,
    prefix: 'evt',
    auth: 'key',
    fields: [['endpoint', 'string', [id101]]],
  },

  // Order imports (merchant keys)
  {
    route: 'POST /v1/order_imports',
    name: 'create order import',
    method: 'POST',
    path: () => '/v1/order_imports?mode=valid_rows',
    body: 'raw',
    rawBody: () => ({ payload: IMPORT_CSV, type: 'text/csv' }),
    ok: 202,
    auth: 'key',
  },
  {
    route: 'GET /v1/order_imports',
    name: 'list order imports',
    method: 'GET',
    path: () => '/v1/order_imports',
    body: 'none',
    ok: 200,
    auth: 'key',
    query: [...LIST_QUERY, ['starting_after=imp_nope', 'starting_after', 'parameter_invalid']],
    okQueries: ['', 'limit=100'],
  },
  {
    route: 'GET /v1/order_imports/{id}',
    name: 'read order import',
    method: 'GET',
    path: (f) => `/v1/order_imports/${f.orderImport.id}`,
    body: 'none',
    ok: 200,
    id: (f) => f.orderImport.id,
    prefix: 'imp',
    auth: 'key',
  },
  {
    route: 'GET /v1/order_imports/{id}/failed_rows.csv',
    name: 'order import failed rows',
    method: 'GET',
    path: (f) => `/v1/order_imports/${f.orderImport.id}/failed_rows.csv`,
    body: 'none',
    ok: 200,
    id: (f) => f.orderImport.id,
    prefix: 'imp',
    auth: 'key',
  },
  ...(['csv', 'xlsx'] as const).map(
    (ext): Endpoint => ({
      route: `GET /v1/order_imports/template.${ext}`,
      name: `order import template ${ext}`,
      method: 'GET',
      path: () => `/v1/order_imports/template.${ext}`,
      body: 'none',
      ok: 200,
      auth: 'key',
    }),
  ),
  // Sessions, users and invitations (DESIGN §8)
  {
    route: 'POST /v1/session',
    name: 'sign in',
    method: 'POST',
    path: () => '/v1/session',
    body: 'required',
    ok: 200,
    valid: (f) => ({ email: pp(f).adminEmail, password: PASSWORD }),
    auth: 'none',
    fields: [
      ['email', 'string', ['', 'x'.repeat(255)]],
      ['password', 'string', ['', 'x'.repeat(1001)]],
    ],
  },
  {
    route: 'GET /v1/session',
    name: 'read session',
    method: 'GET',
    path: () => '/v1/session',
    body: 'none',
    ok: 200,
    auth: 'admin',
  },
  {
    route: 'DELETE /v1/session',
    name: 'sign out',
    method: 'DELETE',
    path: () => '/v1/session',
    body: 'none',
    ok: 200,
    auth: 'admin',
  },
  {
    route: 'GET /v1/users',
    name: 'list users',
    method: 'GET',
    path: () => '/v1/users',
    body: 'none',
    ok: 200,
    auth: 'admin',
  },
  {
    route: 'POST /v1/users',
    name: 'create user',
    method: 'POST',
    path: () => '/v1/users',
    body: 'required',
    ok: 201,
    valid: () => ({ email: uniqueEmail(), name: 'Dora', role: 'dispatcher', password: PASSWORD }),
    auth: 'admin',
    fields: [
      ['email', 'string', ['', 'ab', 'x'.repeat(255)]],
      ['name', 'string', ['', 'x'.repeat(201)]],
      ['role', 'string', ['', 'owner', 'ADMIN']],
      ['password', 'string', ['', 'short', 'x'.repeat(1001)]],
      ['account', 'string', ['', id101]],
    ],
  },
  {
    route: 'PATCH /v1/users/{id}',
    name: 'update user',
    method: 'PATCH',
    path: (f) => `/v1/users/${pp(f).user.id}`,
    body: 'optional',
    ok: 200,
    valid: () => ({ name: 'Dora P.' }),
    id: (f) => pp(f).user.id,
    prefix: 'usr',
    auth: 'admin',
    fields: [
      ['name', 'string', ['', 'x'.repeat(201)]],
      ['role', 'string', ['', 'owner']],
      ['status', 'string', ['', 'deleted']],
      ['account', 'string', ['', id101], true],
    ],
  },
  {
    route: 'POST /v1/invitations',
    name: 'invite',
    method: 'POST',
    path: () => '/v1/invitations',
    body: 'required',
    ok: 201,
    valid: () => ({ email: uniqueEmail(), role: 'dispatcher' }),
    auth: 'admin',
    fields: [
      ['email', 'string', ['', 'x'.repeat(255)]],
      ['role', 'string', ['', 'owner']],
      ['account', 'string', ['', id101]],
    ],
  },
  {
    route: 'GET /v1/invitations',
    name: 'list invitations',
    method: 'GET',
    path: () => '/v1/invitations',
    body: 'none',
    ok: 200,
    auth: 'admin',
  },
  {
    route: 'GET /v1/invitations/{token}',
    name: 'read invitation',
    method: 'GET',
    path: (f) => `/v1/invitations/${pp(f).invitation}`,
    body: 'none',
    ok: 200,
    id: (f) => pp(f).invitation,
    prefix: 'inv',
    auth: 'none',
  },
  {
    route: 'POST /v1/invitations/{token}/accept',
    name: 'accept invitation',
    method: 'POST',
    path: (f) => `/v1/invitations/${pp(f).invitation}/accept`,
    body: 'required',
    ok: 201,
    valid: () => ({ name: 'Nina', password: PASSWORD }),
    id: (f) => pp(f).invitation,
    prefix: 'inv',
    auth: 'none',
    fields: [
      ['name', 'string', ['', 'x'.repeat(201)]],
      ['password', 'string', ['', 'short', 'x'.repeat(1001)]],
    ],
  },

  // Passwords (issue #18): changing one's own, admins' reset links
  {
    route: 'POST /v1/session/password',
    name: 'change password',
    method: 'POST',
    path: () => '/v1/session/password',
    body: 'required',
    ok: 200,
    valid: () => ({ current_password: PASSWORD, new_password: 'a brand new password' }),
    auth: 'admin',
    fields: [
      ['current_password', 'string', ['', 'x'.repeat(1001)]],
      ['new_password', 'string', ['', 'short', 'x'.repeat(1001)]],
    ],
  },
  {
    route: 'POST /v1/users/{id}/password_reset',
    name: 'reset password',
    method: 'POST',
    path: (f) => `/v1/users/${pp(f).user.id}/password_reset`,
    body: 'optional',
    ok: 201,
    id: (f) => pp(f).user.id,
    prefix: 'usr',
    auth: 'admin',
  },
  {
    route: 'GET /v1/password_resets/{token}',
    name: 'read password reset',
    method: 'GET',
    path: (f) => `/v1/password_resets/${pp(f).passwordReset}`,
    body: 'none',
    ok: 200,
    id: (f) => pp(f).passwordReset,
    prefix: 'pwr',
    auth: 'none',
  },
  {
    route: 'POST /v1/password_resets/{token}/complete',
    name: 'complete password reset',
    method: 'POST',
    path: (f) => `/v1/password_resets/${pp(f).passwordReset}/complete`,
    body: 'required',
    ok: 200,
    valid: () => ({ password: 'a brand new password' }),
    id: (f) => pp(f).passwordReset,
    prefix: 'pwr',
    auth: 'none',
    fields: [['password', 'string', ['', 'short', 'x'.repeat(1001)]]],
  },

  // Route planning (DESIGN §10): the carrier's, so called with an admin's session
  {
    route: 'POST /v1/depots',
    name: 'create depot',
    method: 'POST',
    path: () => '/v1/depots',
    body: 'required',
    ok: 201,
    valid: () => ({ name: 'North', lat: -12.05, lng: -77.04, address: 'Av. Norte 1', timezone: 'America/Lima' }),
    auth: 'admin',
    fields: [
      ['name', 'string', ['', 'x'.repeat(201)]],
      ['lat', 'number', [90.0001, -90.0001, 1e308]],
      ['lng', 'number', [180.0001, -180.0001]],
      ['address', 'string', [s500 + s500], true],
      ['timezone', 'string', ['', 'Mars/Olympus', 'x'.repeat(65)]],
      ['shift_start', 'string', ['8:00', '24:00', '19:00'], true],
      ['shift_end', 'string', ['08:60', '0800'], true],
    ],
  },
  {
    route: 'GET /v1/depots',
    name: 'list depots',
    method: 'GET',
    path: () => '/v1/depots',
    body: 'none',
    ok: 200,
    auth: 'admin',
    query: LIST_QUERY,
    okQueries: ['', 'limit=100', 'limit=1'],
  },
  {
    route: 'GET /v1/depots/{id}',
    name: 'read depot',
    method: 'GET',
    path: (f) => `/v1/depots/${f.depot.id}`,
    body: 'none',
    ok: 200,
    id: (f) => f.depot.id,
    prefix: 'dep',
    auth: 'admin',
  },
  {
    route: 'POST /v1/route_plans',
    name: 'create route plan',
    method: 'POST',
    path: () => '/v1/route_plans',
    body: 'required',
    ok: 202,
    valid: (f) => ({
      date: '2030-01-02',
      depot: f.depot.id,
      couriers: [{ courier_id: f.courier.id, capacity_kg: 50, shift_start: '08:00', shift_end: '18:00' }],
      order_ids: [f.order.id],
      objective: 'min_distance',
      time_limit_ms: 100,
      seed: 3,
    }),
    auth: 'admin',
    fields: [
      ['date', 'string', ['', 'tomorrow', '2030-13-02', '2030-01-02T00:00:00Z']],
      ['depot', 'string', ['', 'dep_nope', id101]],
      ['couriers', 'array', [[]]],
      ['couriers[0].courier_id', 'string', ['', 'cou_nope']],
      ['couriers[0].capacity_kg', 'number', [-1], true],
      ['couriers[0].shift_start', 'string', ['8:00', '24:00'], true],
      ['couriers[0].shift_end', 'string', ['07:00', '25:00'], true],
      ['order_ids', 'array', [[]]],
      ['order_ids[0]', 'string', ['', 'ord_nope']],
      ['objective', 'string', ['', 'fastest']],
      ['time_limit_ms', 'integer', [99, 60_001, 1.5]],
      ['seed', 'integer', [-1, 1.5]],
    ],
  },
  {
    route: 'GET /v1/route_plans/{id}',
    name: 'read route plan',
    method: 'GET',
    path: (f) => `/v1/route_plans/${f.routePlan.id}`,
    body: 'none',
    ok: 200,
    id: (f) => f.routePlan.id,
    prefix: 'rplan',
    auth: 'admin',
  },
  {
    route: 'PATCH /v1/route_plans/{id}',
    name: 'edit route plan',
    method: 'PATCH',
    path: (f) => `/v1/route_plans/${f.routePlan.id}`,
    body: 'required',
    // The fixture's plan is already committed: a well-formed edit is 409, a malformed one 422 first.
    ok: 409,
    valid: (f) => ({ routes: [{ courier_id: f.courier.id, order_ids: [f.order.id] }] }),
    id: (f) => f.routePlan.id,
    prefix: 'rplan',
    auth: 'admin',
    fields: [
      ['routes', 'array', [[]]],
      ['routes[0].courier_id', 'string', ['', id101]],
      ['routes[0].order_ids', 'array', []],
      ['routes[0].order_ids[0]', 'string', ['', id101]],
    ],
  },
  {
    route: 'POST /v1/route_plans/{id}/commit',
    name: 'commit route plan',
    method: 'POST',
    path: (f) => `/v1/route_plans/${f.routePlan.id}/commit`,
    body: 'optional',
    // The fixture's plan is already committed.
    ok: 409,
    id: (f) => f.routePlan.id,
    prefix: 'rplan',
    auth: 'admin',
    fields: [['force', 'boolean', []]],
  },

  // Live dispatch (DESIGN §16, docs/dispatch.md): the carrier's, so called with an admin's session
  {
    route: 'GET /v1/dispatch_settings',
    name: 'read dispatch settings',
    method: 'GET',
    path: () => '/v1/dispatch_settings',
    body: 'none',
    ok: 200,
    auth: 'admin',
  },
  {
    route: 'PATCH /v1/dispatch_settings',
    name: 'update dispatch settings',
    method: 'PATCH',
    path: () => '/v1/dispatch_settings',
    // Every field is optional: an empty PATCH changes nothing.
    body: 'optional',
    ok: 200,
    valid: () => ({ auto_dispatch: 'off' }),
    auth: 'admin',
    fields: [
      ['auto_dispatch', 'string', ['', 'ASSIGN', 'sometimes']],
      ['accounts', 'array', []],
    ],
  },
  {
    route: 'GET /v1/orders/{id}/dispatch_suggestions',
    name: 'dispatch suggestions',
    method: 'GET',
    path: (f) => `/v1/orders/${f.order.id}/dispatch_suggestions`,
    body: 'none',
    ok: 200,
    id: (f) => f.order.id,
    prefix: 'ord',
    auth: 'admin',
  },
  {
    route: 'POST /v1/orders/{id}/dispatch',
    name: 'dispatch order',
    method: 'POST',
    path: (f) => `/v1/orders/${f.unfit.id}/dispatch`,
    body: 'optional',
    // The order requires a skill no courier has: nobody fits, whichever couriers other rows put on duty.
    ok: 409,
    id: (f) => f.unfit.id,
    prefix: 'ord',
    auth: 'admin',
    fields: [['courier_id', 'string', ['', id101]]],
  },

  {
    route: 'POST /v1/routes/{id}/reoptimize',
    name: 'reoptimize route',
    method: 'POST',
    path: (f) => `/v1/routes/${f.route.id}/reoptimize`,
    body: 'optional',
    ok: 200,
    valid: () => ({ time_limit_ms: 100 }),
    id: (f) => f.route.id,
    prefix: 'rte',
    auth: 'admin',
    fields: [
      ['time_limit_ms', 'integer', [99, 60_001, 1.5]],
      ['apply', 'boolean', []],
      ['order_ids', 'array', []],
      ['route_version', 'string', ['', id101]],
    ],
  },

  // Courier sign-in (DESIGN §9)
  {
    route: 'POST /v1/couriers/{id}/sign_in_codes',
    name: 'courier sign-in code',
    method: 'POST',
    path: (f) => `/v1/couriers/${f.courier.id}/sign_in_codes`,
    body: 'optional',
    ok: 201,
    id: (f) => f.courier.id,
    prefix: 'cou',
    auth: 'admin',
  },
  {
    route: 'POST /v1/couriers/{id}/sign_out_everywhere',
    name: 'courier sign out everywhere',
    method: 'POST',
    path: (f) => `/v1/couriers/${f.courier.id}/sign_out_everywhere`,
    body: 'optional',
    ok: 200,
    id: (f) => f.courier.id,
    prefix: 'cou',
    auth: 'admin',
  },
  {
    route: 'POST /v1/courier_session',
    name: 'courier sign in',
    method: 'POST',
    path: () => '/v1/courier_session',
    body: 'required',
    ok: 200,
    valid: (f) => ({ code: pp(f).code }),
    auth: 'none',
    fields: [['code', 'string', ['', 'x'.repeat(21)]]],
  },
  {
    route: 'GET /v1/courier_session',
    name: 'read courier session',
    method: 'GET',
    path: () => '/v1/courier_session',
    body: 'none',
    ok: 200,
    auth: 'courier',
  },
  {
    route: 'DELETE /v1/courier_session',
    name: 'courier sign out',
    method: 'DELETE',
    path: () => '/v1/courier_session',
    body: 'none',
    ok: 200,
    auth: 'courier',
  },

  // Accounts and API keys (admins; merchant users for their keys)
  {
    route: 'GET /v1/accounts',
    name: 'list accounts',
    method: 'GET',
    path: () => '/v1/accounts',
    body: 'none',
    ok: 200,
    auth: 'admin',
  },
  {
    route: 'POST /v1/accounts',
    name: 'create account',
    method: 'POST',
    path: () => '/v1/accounts',
    body: 'required',
    ok: 201,
    valid: () => ({ name: 'Acme', currency: 'PEN', origin: { lat: -12.1, lng: -77 }, pricing: { base_fee: 600 } }),
    auth: 'admin',
    fields: [
      ['name', 'string', ['', 'x'.repeat(201)]],
      ['currency', 'string', ['', 'usd', 'USDX', 'ZZZ', 'XXX']],
      [
        'origin',
        'object',
        [{ lat: 1 }, { lat: 90.5, lng: 0 }, { lat: 0, lng: -181 }, { lat: 0, lng: 0, zzz: 1 }],
        true,
      ],
      ['pricing', 'object', [{ base_fee: 1, zzz: 1 }, { base_fee: -1 }, { base_fee: 1.5 }, { cod_fee_rate: 2 }], true],
      ['timezone', 'string', ['', 'Mars/Olympus', 'x'.repeat(65)], true],
      ['depot', 'string', ['', 'dep_nope'], true],
    ],
  },
  {
    route: 'GET /v1/accounts/{id}',
    name: 'read account',
    method: 'GET',
    path: (f) => `/v1/accounts/${pp(f).account.id}`,
    body: 'none',
    ok: 200,
    id: (f) => pp(f).account.id,
    prefix: 'acct',
    auth: 'admin',
  },
  {
    route: 'PATCH /v1/accounts/{id}',
    name: 'update account',
    method: 'PATCH',
    path: (f) => `/v1/accounts/${pp(f).account.id}`,
    body: 'optional',
    ok: 200,
    valid: () => ({ name: 'Acme', origin: { lat: -12.1, lng: -77 }, pricing: { base_fee: 600 } }),
    id: (f) => pp(f).account.id,
    prefix: 'acct',
    auth: 'admin',
    fields: [
      ['name', 'string', ['', 'x'.repeat(201)]],
      ['currency', 'string', ['', 'usd', 'USDX', 'ZZZ', 'XXX']],
      // Nullable objects: the validator names the object itself for a flaw inside it.
      [
        'origin',
        'object',
        [{ lat: 1 }, { lat: 90.5, lng: 0 }, { lat: 0, lng: -181 }, { lat: 0, lng: 0, zzz: 1 }],
        true,
      ],
      ['pricing', 'object', [{ base_fee: 1, zzz: 1 }, { base_fee: -1 }, { base_fee: 1.5 }, { cod_fee_rate: 2 }], true],
      ['timezone', 'string', ['', 'Mars/Olympus', 'x'.repeat(65)], true],
      ['depot', 'string', ['', 'dep_nope'], true],
    ],
  },
  {
    route: 'POST /v1/invitations/{id}/revoke',
    name: 'revoke invitation',
    method: 'POST',
    path: (f) => `/v1/invitations/${pp(f).invitationId}/revoke`,
    body: 'optional',
    ok: 200,
    id: (f) => pp(f).invitationId,
    prefix: 'inv',
    auth: 'admin',
  },
  {
    route: 'GET /v1/api_keys',
    name: 'list API keys',
    method: 'GET',
    path: () => '/v1/api_keys',
    body: 'none',
    ok: 200,
    auth: 'admin',
    query: [
      ['zzz=1', 'zzz', 'parameter_unknown'],
      ['account=', 'account', 'parameter_invalid'],
      [`account=${id101}`, 'account', 'parameter_invalid'],
    ],
  },
  {
    route: 'POST /v1/api_keys',
    name: 'create API key',
    method: 'POST',
    path: () => '/v1/api_keys',
    body: 'required',
    ok: 201,
    valid: () => ({ mode: 'test' }),
    auth: 'admin',
    fields: [
      ['mode', 'string', ['', 'prod', 'TEST']],
      ['account', 'string', ['', id101]],
    ],
  },
  {
    route: 'POST /v1/api_keys/{id}/roll',
    name: 'roll API key',
    method: 'POST',
    path: (f) => `/v1/api_keys/${pp(f).apiKey.id}/roll`,
    body: 'optional',
    ok: 201,
    id: (f) => pp(f).apiKey.id,
    prefix: 'key',
    auth: 'admin',
  },
  {
    route: 'DELETE /v1/api_keys/{id}',
    name: 'revoke API key',
    method: 'DELETE',
    path: (f) => `/v1/api_keys/${pp(f).apiKey.id}`,
    body: 'none',
    ok: 200,
    id: (f) => pp(f).apiKey.id,
    prefix: 'key',
    auth: 'admin',
  },

  // Public tracking
  {
    route: 'GET /v1/public/tracking/{tracking_code}',
    name: 'public tracking JSON',
    method: 'GET',
    path: (f) => `/v1/public/tracking/${f.order.tracking_code}`,
    body: 'none',
    ok: 200,
    id: (f) => f.order.tracking_code,
    auth: 'none',
  },
  {
    route: 'GET /track/{tracking_code}',
    name: 'tracking page',
    method: 'GET',
    path: (f) => `/track/${f.order.tracking_code}`,
    body: 'none',
    ok: 200,
    id: (f) => f.order.tracking_code,
    auth: 'none',
    html: true,
  },
  {
    route: 'GET /track',
    name: 'tracking page: type a code',
    method: 'GET',
    path: () => '/track',
    body: 'none',
    ok: 200,
    auth: 'none',
    html: true,
    okQueries: ['lang=pt', 'lang=%00x', 'zzz=1'],
  },
  {
    route: 'GET /track/{tracking_code}/events',
    name: 'tracking page stream',
    method: 'GET',
    path: (f) => `/track/${f.order.tracking_code}/events`,
    body: 'none',
    ok: 200,
    id: (f) => f.order.tracking_code,
    auth: 'none',
    stream: true,
  },
  {
    route: 'POST /track/{tracking_code}/instructions',
    name: 'customer instructions',
    method: 'POST',
    path: (f) => `/track/${f.order.tracking_code}/instructions`,
    body: 'required',
    valid: () => ({ instructions: 'Ring twice', safe_place: 'With the doorman' }),
    ok: 200,
    id: (f) => f.order.tracking_code,
    auth: 'none',
    fields: [
      ['instructions', 'string', ['x'.repeat(501)]],
      ['safe_place', 'string', ['x'.repeat(201)], true],
    ],
  },
  {
    route: 'POST /track/{tracking_code}/reschedule',
    name: 'customer reschedule',
    method: 'POST',
    path: (f) => `/track/${f.order.tracking_code}/reschedule`,
    body: 'required',
    valid: () => ({ day: '2030-01-02' }),
    // The fixture's order has not failed: there is no day to choose yet.
    ok: 409,
    id: (f) => f.order.tracking_code,
    auth: 'none',
    fields: [['day', 'string', ['', '2030-13-01', 'tomorrow']]],
  },
  {
    route: 'POST /track/{tracking_code}/feedback',
    name: 'customer rating',
    method: 'POST',
    path: (f) => `/track/${f.order.tracking_code}/feedback`,
    body: 'required',
    valid: () => ({ rating: 5, comment: 'Fast' }),
    // The fixture's order is not delivered: nothing to rate yet.
    ok: 409,
    id: (f) => f.order.tracking_code,
    auth: 'none',
    fields: [
      ['rating', 'integer', [0, 6, 4.5]],
      ['comment', 'string', ['x'.repeat(1001)], true],
    ],
  },
  {
    route: 'GET /v1/geocode',
    name: 'address search',
    method: 'GET',
    path: () => '/v1/geocode?q=Av.%20Larco%20345',
    body: 'none',
    ok: 200,
    auth: 'key',
    query: [
      ['zzz=1', 'zzz', 'parameter_unknown'],
      ['limit=0', 'limit', 'parameter_invalid'],
      ...notPlainInteger('limit'),
    ],
  },

  // Live stream (test/stream.test.ts holds its scope and resume cases)
  {
    route: 'GET /v1/stream',
    name: 'live stream',
    method: 'GET',
    path: () => '/v1/stream',
    body: 'none',
    ok: 200,
    auth: 'key',
    stream: true,
    // `mode` picks a session's environment; the test key here is bound to test, so live is 422.
    query: [
      ['zzz=1', 'zzz', 'parameter_unknown'],
      ['mode=nope', 'mode', 'parameter_invalid'],
      ['mode=', 'mode', 'parameter_invalid'],
      ['mode=TEST', 'mode', 'parameter_invalid'],
      ['mode=test&mode=live', 'mode', 'parameter_invalid'],
      ['mode=live', 'mode', 'parameter_invalid'],
    ],
    // A stream never ends, so the 200s are opened over HTTP in test/stream.test.ts, not injected here.
    okQueries: [],
  },
  // Money (DESIGN §17): the carrier's (an admin's session here); a merchant's reads are in test/money-isolation.test.ts.
  {
    route: 'GET /v1/couriers/{id}/cash',
    name: 'courier cash',
    method: 'GET',
    path: (f) => `/v1/couriers/${f.courier.id}/cash`,
    body: 'none',
    ok: 200,
    id: (f) => f.courier.id,
    prefix: 'cou',
    auth: 'admin',
    query: [
      ['from=2026-13-01', 'from', 'parameter_invalid'],
      ['zzz=1', 'zzz', 'parameter_unknown'],
      ['from=2026-01-02&to=2026-01-01', 'from', 'parameter_invalid'],
      ['from=2020-01-01&to=2026-01-01', 'from', 'parameter_invalid'],
      // A day to come: refused, not answered with zeros.
      ['to=2999-01-01', 'to', 'parameter_invalid'],
    ],
  },
  {
    route: 'POST /v1/couriers/{id}/cash_handovers',
    name: 'record cash handover',
    method: 'POST',
    path: (f) => `/v1/couriers/${f.courier.id}/cash_handovers`,
    body: 'required',
    ok: 201,
    valid: () => ({ amount: 12.5, currency: 'PEN', received_by: 'Caja 1' }),
    id: (f) => f.courier.id,
    prefix: 'cou',
    auth: 'admin',
    fields: [
      ['amount', 'number', [0, -1, 1.001, 100_000_000]],
      ['currency', 'string', ['', 'pen', 'PENN', 'ZZZ', 'XTS', 'XAU']],
      ['received_by', 'string', ['', s500]],
      ['notes', 'string', [s500]],
      // A calendar day, today or earlier: a day to come is refused, not counted ahead.
      ['day', 'string', ['', 'yesterday', '2026-02-30', '2026-11-20T10:00:00Z', '2999-01-01']],
    ],
  },
  {
    route: 'GET /v1/cash/end_of_day',
    name: 'cash end of day',
    method: 'GET',
    path: () => '/v1/cash/end_of_day',
    body: 'none',
    ok: 200,
    auth: 'admin',
    query: [
      ['day=yesterday', 'day', 'parameter_invalid'],
      ['zzz=1', 'zzz', 'parameter_unknown'],
      // A day to come: refused, not answered with zeros.
      ['day=2999-01-01', 'day', 'parameter_invalid'],
    ],
    okQueries: ['', 'day=2026-11-20'],
  },
  {
    route: 'GET /v1/cash/end_of_day/export',
    name: 'export cash end of day',
    method: 'GET',
    path: () => '/v1/cash/end_of_day/export',
    body: 'none',
    ok: 200,
    auth: 'admin',
    query: [
      ['day=yesterday', 'day', 'parameter_invalid'],
      ['day=2999-01-01', 'day', 'parameter_invalid'],
      ['format=pdf', 'format', 'parameter_invalid'],
      ['zzz=1', 'zzz', 'parameter_unknown'],
    ],
    okQueries: ['', 'day=2026-11-20', 'format=xlsx'],
  },
  {
    route: 'POST /v1/cash_handovers/{id}/void',
    name: 'void cash handover',
    method: 'POST',
    path: (f) => `/v1/cash_handovers/${f.handover.id}/void`,
    body: 'required',
    ok: 200,
    valid: () => ({ reason: 'Typed 125 for 12.50' }),
    id: (f) => f.handover.id,
    prefix: 'cho',
    auth: 'admin',
    fields: [['reason', 'string', ['', s500]]],
  },
  {
    route: 'GET /v1/cash/exceptions',
    name: 'cash exceptions',
    method: 'GET',
    path: () => '/v1/cash/exceptions',
    body: 'none',
    ok: 200,
    auth: 'admin',
    query: [
      ['status=closed', 'status', 'parameter_invalid'],
      ['to=2026-02-30', 'to', 'parameter_invalid'],
      ['to=2999-01-01', 'to', 'parameter_invalid'],
    ],
    okQueries: ['', 'status=open', 'status=resolved&from=2026-11-01&to=2026-11-20'],
  },
  {
    route: 'POST /v1/cash/exceptions/{id}/resolve',
    name: 'resolve cash exception',
    method: 'POST',
    // A courier balanced on that day: nothing to resolve (the resolving itself: test/money-day.test.ts).
    path: (f) => `/v1/cash/exceptions/cex_${f.courier.id}_2030-01-01_PEN/resolve`,
    body: 'required',
    ok: 409,
    valid: () => ({ note: 'Counted twice' }),
    id: (f) => `cex_${f.courier.id}_2030-01-01_PEN`,
    prefix: 'cex',
    auth: 'admin',
    fields: [['note', 'string', ['', s500]]],
  },
  {
    route: 'POST /v1/settlements',
    name: 'create settlement',
    method: 'POST',
    path: () => '/v1/settlements',
    body: 'required',
    // The fixture's own draft took every delivered order of the merchant: nothing is left to settle.
    ok: 409,
    valid: (f) => ({ account_id: f.account.id, period_start: '2026-11-01', period_end: '2026-11-30' }),
    auth: 'admin',
    fields: [
      ['account_id', 'string', ['', s500]],
      ['period_start', 'string', ['', '2026-13-01', '2026-11-01T00:00:00Z']],
      ['period_end', 'string', ['', 'soon']],
    ],
  },
  {
    route: 'GET /v1/settlements',
    name: 'list settlements',
    method: 'GET',
    path: () => '/v1/settlements',
    body: 'none',
    ok: 200,
    auth: 'admin',
    query: [
      ['status=void', 'status', 'parameter_invalid'],
      ['limit=0', 'limit', 'parameter_invalid'],
      ['zzz=1', 'zzz', 'parameter_unknown'],
    ],
    okQueries: ['', 'status=draft', 'limit=1'],
  },
  {
    route: 'GET /v1/settlements/{id}',
    name: 'read settlement',
    method: 'GET',
    path: (f) => `/v1/settlements/${f.settlement.id}`,
    body: 'none',
    ok: 200,
    id: (f) => f.settlement.id,
    prefix: 'stl',
    auth: 'admin',
  },
  {
    route: 'GET /v1/settlements/{id}/export',
    name: 'export settlement',
    method: 'GET',
    path: (f) => `/v1/settlements/${f.settlement.id}/export`,
    body: 'none',
    ok: 200,
    id: (f) => f.settlement.id,
    prefix: 'stl',
    auth: 'admin',
    query: [['format=pdf', 'format', 'parameter_invalid']],
    okQueries: ['', 'format=csv', 'format=xlsx'],
  },
  {
    route: 'POST /v1/settlements/{id}/issue',
    name: 'issue settlement',
    method: 'POST',
    path: (f) => `/v1/settlements/${f.settlement.id}/issue`,
    body: 'optional',
    ok: 200,
    id: (f) => f.settlement.id,
    prefix: 'stl',
    auth: 'admin',
  },
  {
    route: 'POST /v1/settlements/{id}/pay',
    name: 'pay settlement',
    method: 'POST',
    path: (f) => `/v1/settlements/${f.settlement.id}/pay`,
    body: 'optional',
    // A fresh fixture's settlement is a draft: it must be issued first.
    ok: 409,
    id: (f) => f.settlement.id,
    prefix: 'stl',
    auth: 'admin',
  },
  {
    route: 'DELETE /v1/settlements/{id}',
    name: 'delete draft settlement',
    method: 'DELETE',
    path: (f) => `/v1/settlements/${f.settlement.id}`,
    body: 'none',
    ok: 200,
    id: (f) => f.settlement.id,
    prefix: 'stl',
    auth: 'admin',
  },
  {
    route: 'GET /v1/reports/summary',
    name: 'report summary',
    method: 'GET',
    path: () => '/v1/reports/summary',
    body: 'none',
    ok: 200,
    auth: 'admin',
    query: [
      ['group_by=week', 'group_by', 'parameter_invalid'],
      ['from=2026-1-1', 'from', 'parameter_invalid'],
      ['zzz=1', 'zzz', 'parameter_unknown'],
    ],
    okQueries: [
      '',
      'group_by=day',
      'group_by=courier',
      'group_by=district',
      'group_by=merchant&from=2026-11-01&to=2026-11-30',
    ],
  },
  {
    route: 'GET /v1/reports/summary/export',
    name: 'export report summary',
    method: 'GET',
    path: () => '/v1/reports/summary/export',
    body: 'none',
    ok: 200,
    auth: 'admin',
    query: [['format=pdf', 'format', 'parameter_invalid']],
    okQueries: ['', 'format=xlsx&group_by=day'],
  },
];

/**
 * The fixture's parts a row reads: its path, body and id are probed with a recording proxy of the
 * shared fixture (they are pure functions of it). A fresh fixture for a row makes only those.
 */
export function partsRead(row: Endpoint, shared: Fixture): Set<string> {
  const used = new Set<string>();
  const probe = new Proxy(shared, {
    get(target, prop, receiver) {
      if (typeof prop === 'string') used.add(prop);
      return Reflect.get(target, prop, receiver);
    },
  });
  row.path(probe);
  row.valid?.(probe);
  row.id?.(probe);
  return used;
}

/**
 * The objects the table's paths name, all owned by the merchant's test key. With `shared` (a
 * fixture made before), new objects replace its changeable ones; with `row` too, only the ones that
 * row reads (every part when no row is named): a fixture per call stays a handful of requests.
 */
export async function makeFixture(t: TestApp, key: string, shared?: Fixture, row?: Endpoint): Promise<Fixture> {
  const call = client(t.app, key);
  const ok = (res: Pick<Res, 'status' | 'body'>, what: string) => {
    if (res.status >= 300) throw new Error(`fixture ${what}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
  const used = shared && row ? partsRead(row, shared) : undefined;
  const wants = (...parts: string[]) => used === undefined || parts.some((p) => used.has(p));
  // An account may have 16 endpoints per environment: each fresh fixture retires the older ones
  // (the create calls of the table's rows add theirs too), so the next creation always has room.
  if (wants('endpoint') || row?.route.includes('/v1/webhook_endpoints')) {
    const existing = ok(await call('GET', '/v1/webhook_endpoints?limit=100'), 'endpoints').data as { id: string }[];
    const retired = existing.filter((e) => e.id !== shared?.endpoint.id).slice(4);
    for (const e of retired) ok(await call('DELETE', `/v1/webhook_endpoints/${e.id}`), 'endpoint delete');
  }
  const endpoint = wants('endpoint')
    ? ok(await call('POST', '/v1/webhook_endpoints', { url: 'http://127.0.0.1:9/hook', events: ['*'] }), 'endpoint')
    : shared?.endpoint;
  // A settlement's rows (and the one that drafts another for its account) need the draft made new.
  const wantsMoney = wants('settlement', 'account');
  const courier =
    wants('courier') || wantsMoney
      ? ok(await call('POST', '/v1/couriers', { name: 'Luis' }), 'courier')
      : shared?.courier;
  // The settlement's delivered order before the fixture's order: its events are older than the fixture's event.
  const money = wantsMoney ? await moneyFixture(t, call, courier.id) : undefined;
  const order = wants('order', 'message') ? ok(await call('POST', '/v1/orders', validOrder()), 'order') : shared?.order;
  const unfit = wants('unfit')
    ? ok(await call('POST', '/v1/orders', validOrder({ requirements: ['corpus-never'] })), 'unfit order')
    : shared?.unfit;
  // A handover's row voids it: each fixture that names it records a new one, with the carrier's key.
  const handover = wants('handover') || !shared ? await handoverFixture(t, courier.id) : shared.handover;
  const message = wants('message')
    ? ok(await call('GET', `/v1/messages?order=${order.id}`), 'messages').data[0]
    : shared?.message;
  if (!message) throw new Error('fixture message: the order has none (is order_confirmed by email on by default?)');
  if (shared) return { ...shared, order, courier, endpoint, message, unfit, handover, ...money };
  if (!money) throw new Error('fixture: a first fixture makes every part');
  const routed = ok(await call('POST', '/v1/orders', validOrder()), 'routed order');
  const route = ok(await call('POST', '/v1/routes', { courier_id: courier.id, order_ids: [routed.id] }), 'route');
  const file = ok(await upload(t, key, 'photo', tinyPng()), 'file');
  const events = ok(await call('GET', `/v1/events?order=${order.id}`), 'events');
  const orderImport = ok(
    await call('POST', '/v1/order_imports', IMPORT_CSV, { 'content-type': 'text/csv' }),
    'order import',
  );
  // Plans are the carrier's: an operator key makes the depot and a plan, then commits it, so every
  // later commit of it is 409 plan_not_ready whatever the order of the rows.
  const op = client(t.app, await newOperator(t, 'test'));
  const depot = ok(await op('POST', '/v1/depots', { name: 'Main', lat: -12.12, lng: -77.03 }), 'depot');
  const planned = ok(await call('POST', '/v1/orders', validOrder()), 'planned order');
  const routePlan = ok(
    await op('POST', '/v1/route_plans', {
      date: '2030-01-02',
      depot: depot.id,
      couriers: [{ courier_id: courier.id }],
      order_ids: [planned.id],
      time_limit_ms: 100,
    }),
    'route plan',
  );
  await t.jobs.idle();
  ok(await op('POST', `/v1/route_plans/${routePlan.id}/commit`), 'route plan commit');
  return {
    order,
    courier,
    route,
    file,
    endpoint,
    event: events.data[0],
    message,
    unfit,
    orderImport,
    depot,
    routePlan,
    handover,
    ...money,
  };
}

const operators = new WeakMap<TestApp, string>();

/** The carrier's operator key of the app (test environment), made once. */
async function operatorOf(t: TestApp): Promise<string> {
  let opKey = operators.get(t);
  if (!opKey) {
    opKey = await newOperator(t, 'test');
    operators.set(t, opKey);
  }
  return opKey;
}

/** A cash handover of the courier, recorded by the carrier. */
async function handoverFixture(t: TestApp, courierId: string): Promise<{ id: string }> {
  const res = await client(t.app, await operatorOf(t))('POST', `/v1/couriers/${courierId}/cash_handovers`, {
    amount: 125,
    currency: 'PEN',
    received_by: 'Caja corpus',
  });
  if (res.status !== 201) throw new Error(`fixture handover: ${res.status} ${JSON.stringify(res.body)}`);
  return { id: res.body.id as string };
}

/**
 * A draft settlement of the merchant, new with every fixture that needs one, made by the carrier:
 * a new order is delivered and drafted (the older drafts hold the earlier ones).
 */
async function moneyFixture(t: TestApp, call: ReturnType<typeof client>, courierId: string) {
  const op = client(t.app, await operatorOf(t));
  // A sandbox courier belongs to the merchant whose key made it.
  const found = await t.ctx.db
    .selectFrom('couriers')
    .select('account_id')
    .where('id', '=', courierId)
    .executeTakeFirstOrThrow();
  const row = { account_id: found.account_id as string };
  const draft = () =>
    op('POST', '/v1/settlements', { account_id: row.account_id, period_start: '2000-01-01', period_end: '2100-12-31' });
  let settlement: Res | undefined;
  // Fixtures made at once race for the same delivered orders (409 to the loser): deliver another and
  // draft again, a few times.
  for (let attempt = 0; attempt < 5 && settlement?.status !== 201; attempt++) {
    const delivered = (await call('POST', '/v1/orders', validOrder({ requires_signature: false, cash_on_delivery: 0 })))
      .body;
    for (const [action, body] of [
      ['assign', { courier_id: courierId }],
      ['pickup'],
      ['depart'],
      ['deliver', { receiver_name: 'Ana' }],
    ] as const) {
      const res = await call('POST', `/v1/orders/${delivered.id}/${action}`, body);
      if (res.status !== 200) throw new Error(`fixture ${action}: ${res.status} ${JSON.stringify(res.body)}`);
    }
    settlement = await draft();
  }
  if (settlement?.status !== 201)
    throw new Error(`fixture settlement: ${settlement?.status} ${JSON.stringify(settlement?.body)}`);
  return { account: { id: row.account_id as string }, settlement: { id: settlement.body.id as string } };
}
