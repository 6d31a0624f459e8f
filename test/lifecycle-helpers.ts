import { deflateSync } from 'node:zlib';
import type { TestApp } from './helpers.js';
import { client, validOrder } from './helpers.js';

function crc32(buf: Buffer): number {
  let c = ~0;
  for (const b of buf) {
    c ^= b;
    for (let k = 0; k < 8; k++) c = (c >>> 1) ^ (0xedb88320 & -(c & 1));
  }
  return ~c >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}

/** A real, decodable PNG: `size`×`size` pixels of one RGB colour. */
export function tinyPng(size = 2, rgb: [number, number, number] = [200, 30, 30]): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(size, 0);
  ihdr.writeUInt32BE(size, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // truecolour
  const row = Buffer.concat([Buffer.from([0]), Buffer.from(Array.from({ length: size }, () => rgb).flat())]);
  const raw = Buffer.concat(Array.from({ length: size }, () => row));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

export async function upload(t: TestApp, key: string, purpose: string, bytes: Buffer, type = 'image/png') {
  const res = await t.app.inject({
    method: 'POST',
    url: `/v1/files?purpose=${purpose}`,
    headers: { authorization: `Bearer ${key}`, 'content-type': type },
    payload: bytes,
  });
  return { status: res.statusCode, body: JSON.parse(res.body), raw: res };
}

/** The valid request body of each move, for an order that needs no signature, photo or COD. */
export function bodyFor(action: string, courierId: string): Record<string, unknown> | undefined {
  switch (action) {
    case 'assign':
      return { courier_id: courierId };
    case 'deliver':
      return { receiver_name: 'Ana Torres' };
    case 'fail':
      return { reason: 'customer_absent' };
    case 'reschedule':
      return { requested_date: '2030-01-02T15:00:00Z' };
    default:
      return undefined;
  }
}

/** Moves from `pending` that reach each status (deliver with fewer packages gives partially_delivered). */
export const PATHS: Record<string, [string, Record<string, unknown>?][]> = {
  pending: [],
  validated: [['validate']],
  assigned: [['assign']],
  ready_for_pickup: [['assign'], ['ready']],
  picked_up: [['assign'], ['pickup']],
  in_transit: [['assign'], ['pickup'], ['depart']],
  arriving: [['assign'], ['pickup'], ['depart'], ['approach']],
  at_location: [['assign'], ['pickup'], ['depart'], ['arrive']],
  delivered: [['assign'], ['pickup'], ['depart'], ['deliver']],
  partially_delivered: [
    ['assign'],
    ['pickup'],
    ['depart'],
    ['deliver', { receiver_name: 'Ana', delivered_packages: 1 }],
  ],
  failed: [['assign'], ['pickup'], ['fail']],
  returned: [['assign'], ['pickup'], ['fail'], ['return']],
  rescheduled: [['reschedule']],
  cancelled: [['cancel']],
};

/** A plain order (2 packages, no signature, photo or COD), moved to `status` with `key`. */
export async function orderIn(
  t: TestApp,
  merchantKey: string,
  moverKey: string,
  courierId: string,
  status: string,
  over: Record<string, unknown> = {},
) {
  const order = (
    await client(t.app, merchantKey)(
      'POST',
      '/v1/orders',
      validOrder({
        requires_signature: false,
        cash_on_delivery: 0,
        items: [{ description: 'Box', quantity: 2, weight_kg: 1 }],
        ...over,
      }),
    )
  ).body;
  const call = client(t.app, moverKey);
  for (const [action, body] of PATHS[status]) {
    const res = await call('POST', `/v1/orders/${order.id}/${action}`, body ?? bodyFor(action, courierId));
    if (res.status !== 200) throw new Error(`${action} → ${res.status} ${JSON.stringify(res.body)}`);
  }
  return order as { id: string; tracking_code: string };
}

export async function eventsOf(t: TestApp, orderId: string) {
  const rows = await t.ctx.db
    .selectFrom('events')
    .selectAll()
    .where('order_id', '=', orderId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map((r) => JSON.parse(r.payload));
}
