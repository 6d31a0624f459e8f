import type { Selectable } from 'kysely';
import { compiledInsertRows, precompiled } from '../../shared/db/compiled.js';
import type { Executor } from '../../shared/db/index.js';
import type { JobsTable, Mode } from '../../shared/db/schema.js';
import type { MessageStatus, MessagesTable } from '../../shared/db/tables/messages.js';
import type { MessageSettings } from './settings.js';

export type MessageRow = Selectable<MessagesTable>;

/** What a message needs to know of its order: a plain shape, so orders and lifecycle can both pass theirs. */
export interface MessageOrder {
  id: string;
  account_id: string;
  mode: Mode;
  tracking_code: string;
  customer: { name: string; phone?: string; whatsapp?: string; email?: string; locale?: string };
  timezone: string;
  time_window: { start: string; end: string } | null;
  courier_name: string | null;
  failure_reason: string | null;
  delivery_pin?: string | null;
  /** Who took the parcel, once delivered (its proof); a move's own facts come first (content.ts). */
  receiver_name?: string | null;
}

const MESSAGE_COLUMNS = Object.keys({
  id: 1,
  account_id: 1,
  mode: 1,
  order_id: 1,
  trigger: 1,
  channel: 1,
  to_address: 1,
  locale: 1,
  subject: 1,
  body: 1,
  body_masked: 1,
  status: 1,
  reason: 1,
  provider: 1,
  provider_message_id: 1,
  segments: 1,
  attempts: 1,
  send_started_at: 1,
  last_error: 1,
  created_at: 1,
  updated_at: 1,
  sent_at: 1,
  delivered_at: 1,
  facts: 1,
} satisfies Record<keyof MessagesTable, 1>) as (keyof MessagesTable)[];

/**
 * New messages, precompiled, many rows a statement: a create with order_confirmed on writes one
 * per channel, and Kysely's building and compiling of a multi-row INSERT, or a statement per row,
 * cost more than SQLite's writing of them. Only for messages of new orders (no conflict possible);
 * a move's go through insertMessages. 24 columns: 100 rows stay far below SQLite's 32 766 values.
 */
export const insertNewMessages: (db: Executor, rows: readonly MessageRow[]) => Promise<void> = compiledInsertRows(
  'messages',
  MESSAGE_COLUMNS,
  100,
);

/** Who reads: a merchant (its account) or the carrier (every account), always one environment. */
export interface Reader {
  mode: Mode;
  accountId: string | null;
}

/** The carrier's defaults live under this account id. */
export const CARRIER = '*';

/** Precompiled: every create reads them (for its order_confirmed messages). */
const settingsRows = precompiled((db, accountIds: readonly string[]) =>
  db.selectFrom('message_settings').select(['account_id', 'settings']).where('account_id', 'in', accountIds),
);

export async function settingsOf(db: Executor, accountIds: string[]): Promise<Map<string, Partial<MessageSettings>>> {
  const rows = await settingsRows(db, accountIds);
  return new Map(rows.map((r) => [r.account_id, JSON.parse(r.settings) as Partial<MessageSettings>]));
}

export async function putSettings(db: Executor, accountId: string, settings: MessageSettings, now: number) {
  const value = JSON.stringify(settings);
  await db
    .insertInto('message_settings')
    .values({ account_id: accountId, settings: value, updated_at: now })
    .onConflict((oc) => oc.column('account_id').doUpdateSet({ settings: value, updated_at: now }))
    .execute();
}

/**
 * Writes a move's messages and their send job in the caller's transaction. A message that already
 * exists for its (order, trigger, channel) is skipped, and the job sends only the ones written:
 * the unique index is what makes "one message each" hold across retries and races. Returns how
 * many queued messages the job sends.
 */
export async function insertMessages(db: Executor, rows: MessageRow[], job: JobsTable | null): Promise<number> {
  if (rows.length === 0) return 0;
  const written = await db
    .insertInto('messages')
    .values(rows)
    .onConflict((oc) => oc.columns(['order_id', 'trigger', 'channel']).doNothing())
    .returning('id')
    .execute();
  if (job === null) return 0;
  const mine = new Set(written.map((r) => r.id));
  const due = (JSON.parse(job.payload ?? '[]') as string[]).filter((id) => mine.has(id));
  if (due.length > 0)
    await db
      .insertInto('jobs')
      .values({ ...job, payload: JSON.stringify(due) })
      .execute();
  return due.length;
}

export interface ListFilter {
  order?: string;
  channel?: string;
  status?: string;
  trigger?: string;
  account?: string;
  afterId?: string;
  limit: number;
}

/** Newest first, by id (ids sort by creation time); one more than the page, for has_more. */
export async function listMessages(db: Executor, who: Reader, f: ListFilter): Promise<MessageRow[]> {
  let q = db.selectFrom('messages').selectAll().where('mode', '=', who.mode);
  if (who.accountId !== null) q = q.where('account_id', '=', who.accountId);
  if (f.order !== undefined) q = q.where('order_id', '=', f.order);
  if (f.channel !== undefined) q = q.where('channel', '=', f.channel as never);
  if (f.status !== undefined) q = q.where('status', '=', f.status as never);
  if (f.trigger !== undefined) q = q.where('trigger', '=', f.trigger as never);
  if (f.account !== undefined) q = q.where('account_id', '=', f.account);
  if (f.afterId !== undefined) q = q.where('id', '<', f.afterId);
  return q
    .orderBy('id', 'desc')
    .limit(f.limit + 1)
    .execute();
}

export async function findMessage(db: Executor, who: Reader, id: string): Promise<MessageRow | undefined> {
  let q = db.selectFrom('messages').selectAll().where('id', '=', id).where('mode', '=', who.mode);
  if (who.accountId !== null) q = q.where('account_id', '=', who.accountId);
  return q.executeTakeFirst();
}

export async function messageById(db: Executor, id: string): Promise<MessageRow | undefined> {
  return db.selectFrom('messages').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function messageByProviderId(
  db: Executor,
  provider: string,
  providerId: string,
): Promise<MessageRow | undefined> {
  return db
    .selectFrom('messages')
    .selectAll()
    .where('provider', '=', provider as never)
    .where('provider_message_id', '=', providerId)
    .executeTakeFirst();
}

/**
 * Marks the start of a provider call, committed before the call: a worker that finds it set after
 * a crash knows the provider may have the message already. Only while the message is still queued.
 * `content`: the text rendered for this first send, stored with the mark (so a retry or a worker
 * taking over sends, and looks up, the same text).
 */
export async function markSending(
  db: Executor,
  id: string,
  now: number,
  content?: Pick<MessageRow, 'to_address' | 'subject' | 'body' | 'body_masked' | 'segments'> | null,
): Promise<boolean> {
  const r = await db
    .updateTable('messages')
    .set((eb) => ({ ...content, send_started_at: now, attempts: eb('attempts', '+', 1), updated_at: now }))
    .where('id', '=', id)
    .where('status', '=', 'queued')
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

export async function updateMessage(
  db: Executor,
  id: string,
  set: Partial<Omit<MessageRow, 'id'>>,
  onlyFrom?: readonly MessageStatus[],
): Promise<MessageRow | undefined> {
  let q = db.updateTable('messages').set(set).where('id', '=', id);
  if (onlyFrom) q = q.where('status', 'in', [...onlyFrom]);
  return q.returningAll().executeTakeFirst();
}

export async function isOptedOut(db: Executor, accountId: string, address: string): Promise<boolean> {
  const row = await db
    .selectFrom('message_opt_outs')
    .select('address')
    .where('account_id', '=', accountId)
    .where('address', '=', address)
    .executeTakeFirst();
  return row !== undefined;
}

export async function optOut(db: Executor, accountId: string, address: string, source: string, now: number) {
  await db
    .insertInto('message_opt_outs')
    .values({ account_id: accountId, address, source, created_at: now })
    .onConflict((oc) => oc.columns(['account_id', 'address']).doNothing())
    .execute();
}

export async function optIn(db: Executor, accountId: string, address: string): Promise<void> {
  await db.deleteFrom('message_opt_outs').where('account_id', '=', accountId).where('address', '=', address).execute();
}

/** The accounts that have written to `address`: an inbound STOP to the carrier's shared number opts out of each. */
export async function accountsThatWrote(db: Executor, address: string): Promise<string[]> {
  const rows = await db
    .selectFrom('messages')
    .select('account_id')
    .distinct()
    .where('to_address', '=', address)
    .where('mode', '=', 'live')
    .execute();
  return rows.map((r) => r.account_id);
}

/**
 * Takes the order's next event sequence for a message event (message.delivered/failed), the way
 * a move does in its guarded UPDATE; returns what the outbox needs of the order.
 */
export async function nextOrderEvent(db: Executor, orderId: string) {
  return db
    .updateTable('orders')
    .set((eb) => ({ event_seq: eb('event_seq', '+', 1) }))
    .where('id', '=', orderId)
    .returning(['id', 'account_id', 'mode', 'external_order_id', 'tracking_code', 'status', 'event_seq'])
    .executeTakeFirst();
}

/** The orders of messages as their texts read them (content.ts), by id. */
export async function messageOrders(db: Executor, ids: string[]): Promise<Map<string, MessageOrder>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom('orders')
    .leftJoin('proofs', 'proofs.order_id', 'orders.id')
    .select([
      'orders.id',
      'orders.account_id',
      'orders.mode',
      'orders.tracking_code',
      'orders.customer',
      'orders.timezone',
      'orders.time_window',
      'orders.courier_name',
      'orders.failure_reason',
      'orders.delivery_pin',
      'proofs.receiver_name',
    ])
    .where('orders.id', 'in', ids)
    .execute();
  return new Map(
    rows.map((r) => [
      r.id,
      {
        ...r,
        customer: JSON.parse(r.customer) as MessageOrder['customer'],
        time_window: r.time_window === null ? null : (JSON.parse(r.time_window) as MessageOrder['time_window']),
      },
    ]),
  );
}

/** Merchants' display names (the `{{merchant_name}}` of their messages), by account id. */
export async function accountNames(db: Executor, ids: string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db.selectFrom('accounts').select(['id', 'name', 'brand_name']).where('id', 'in', ids).execute();
  // The name the customer knows the shop by, as the tracking page and the label show it: its brand's.
  return new Map(rows.map((r) => [r.id, r.brand_name ?? r.name]));
}
