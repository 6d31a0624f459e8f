import { CompiledQuery } from 'kysely';
import type { Engine, Executor } from '../../shared/db/index.js';
import type { WebhookDeliveriesTable, WebhookEndpointsTable } from '../../shared/db/schema.js';

// The claim, the dispatcher's hottest read-write statement after the settle (settle-repo.ts). Its
// SQL is written out once per engine rather than built by Kysely on every claim: the query tree,
// its freezing and compiling cost more worker CPU than the rows it returns.

export type DeliveryEvent = { id: string; type: string; order_id: string | null; payload: string };

/** What a send needs of its endpoint: where, how to sign, and whether it may still be sent to. */
export type SendingEndpoint = Pick<
  WebhookEndpointsTable,
  | 'id'
  | 'url'
  | 'secret'
  | 'previous_secret'
  | 'previous_secret_expires_at'
  | 'status'
  | 'disabled_reason'
  | 'deleted_at'
>;

export interface ClaimedRow {
  /** As claimed: `attempts` already counts this attempt. */
  delivery: WebhookDeliveriesTable;
  /** Undefined only if the row is gone (nothing deletes events or endpoints, so never in practice). */
  event: DeliveryEvent | undefined;
  endpoint: SendingEndpoint | undefined;
}

export interface ClaimOptions {
  owner: string;
  now: number;
  leaseUntil: number;
  limit: number;
  /** Endpoints at their in-flight cap: none of their deliveries is claimed this time. */
  excludeEndpoints: string[];
}

const ENDPOINT_COLUMNS = [
  'id',
  'url',
  'secret',
  'previous_secret',
  'previous_secret_expires_at',
  'status',
  'disabled_reason',
  'deleted_at',
] as const;

/**
 * Due: its time has come, nobody holds a live lease on it, and no lower-sequence delivery of the
 * same (endpoint, order) is still pending. SQLite's claim; PostgreSQL's is the same rule in the
 * function of migration 011 (changing the rule there takes a new migration).
 */
const due = (now: string, excluded: string) => `
      select d.id from webhook_deliveries d
      where d.status = 'pending' and d.next_attempt_at <= ${now}
        and (d.lease_expires_at is null or d.lease_expires_at <= ${now})
        and not exists (
          select 1 from webhook_deliveries p
          where p.endpoint_id = d.endpoint_id and p.order_id = d.order_id
            and p.status = 'pending' and p.sequence < d.sequence)
        and ${excluded}
      order by d.next_attempt_at`;

const lease = 'update webhook_deliveries set lease_owner = $1, lease_expires_at = $2, attempts = attempts + 1';

/**
 * PostgreSQL: one round trip for the claim and what the sends need. SKIP LOCKED lets any number of
 * workers claim side by side without taking the same row; the joins read the event's bytes and the
 * endpoint of each claimed row in the same statement. The pick itself is `due` inside the function
 * `ruta_due_deliveries` (migration 011), whose plan stays the ordered index scan even when the
 * table's statistics are stale.
 */
const PG_CLAIM = `
  with c as (
    ${lease}
    where id = any(array(select ruta_due_deliveries($3, $4::text[], $5)))
    returning *
  )
  select c.*, ev.type as ev_type, ev.order_id as ev_order_id, ev.payload as ev_payload,
    ${ENDPOINT_COLUMNS.map((c) => `ep.${c} as ep_${c}`).join(', ')}
  from c
  left join events ev on ev.id = c.event_id
  left join webhook_endpoints ep on ep.id = c.endpoint_id`;

/** SQLite (a single writer, in-process): the claim, then two reads; parameters are positional `?`. */
const SQLITE_CLAIM = `
  ${lease.replace(/\$\d/g, '?')}
  where id in (${due('?', 'd.endpoint_id not in (select value from json_each(?))')} limit ?)
  returning *`;
const SQLITE_EVENTS = 'select id, type, order_id, payload from events where id in (select value from json_each(?))';
const SQLITE_ENDPOINTS = `select ${ENDPOINT_COLUMNS.join(', ')} from webhook_endpoints
  where id in (select value from json_each(?))`;

/**
 * Claims up to `limit` due deliveries and leases them to `owner` until `leaseUntil`, in one
 * statement (an UPDATE of the rows its subquery picks, so no transaction). The claim also counts the
 * attempt it is for (`attempts + 1`): if this worker dies mid-send, whoever takes the expired lease
 * over sends the next number, not the same one again.
 */
export async function claimDue(db: Executor, engine: Engine, o: ClaimOptions): Promise<ClaimedRow[]> {
  if (engine === 'postgres') {
    const params = [o.owner, o.leaseUntil, o.now, o.excludeEndpoints, o.limit];
    const { rows } = await db.executeQuery<Record<string, unknown>>(CompiledQuery.raw(PG_CLAIM, params));
    return rows.map(splitPgRow);
  }
  const params = [o.owner, o.leaseUntil, o.now, o.now, JSON.stringify(o.excludeEndpoints), o.limit];
  const claimed = (await db.executeQuery<WebhookDeliveriesTable>(CompiledQuery.raw(SQLITE_CLAIM, params))).rows;
  if (claimed.length === 0) return [];
  const ids = (key: 'event_id' | 'endpoint_id') => JSON.stringify([...new Set(claimed.map((d) => d[key]))]);
  const events = await db.executeQuery<DeliveryEvent>(CompiledQuery.raw(SQLITE_EVENTS, [ids('event_id')]));
  const endpoints = await db.executeQuery<SendingEndpoint>(CompiledQuery.raw(SQLITE_ENDPOINTS, [ids('endpoint_id')]));
  const ev = new Map(events.rows.map((e) => [e.id, e]));
  const ep = new Map(endpoints.rows.map((e) => [e.id, e]));
  return claimed.map((d) => ({ delivery: d, event: ev.get(d.event_id), endpoint: ep.get(d.endpoint_id) }));
}

function splitPgRow(r: Record<string, unknown>): ClaimedRow {
  const delivery: Record<string, unknown> = {};
  const endpoint: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(r)) {
    if (k.startsWith('ep_')) endpoint[k.slice(3)] = v;
    else if (!k.startsWith('ev_')) delivery[k] = v;
  }
  const d = delivery as unknown as WebhookDeliveriesTable;
  return {
    delivery: d,
    event:
      r.ev_type == null
        ? undefined
        : {
            id: d.event_id,
            type: r.ev_type as string,
            order_id: r.ev_order_id as string | null,
            payload: r.ev_payload as string,
          },
    endpoint: endpoint.id == null ? undefined : (endpoint as unknown as SendingEndpoint),
  };
}
