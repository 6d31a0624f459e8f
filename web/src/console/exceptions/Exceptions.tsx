import { money, type Order, unwrap, whenIn } from '../../shared/api';
import { plural } from '../../shared/text';
import { positionWords } from '../orders/AttemptPosition';
import { useSession } from '../session';
import { ErrorNote, StatusBadge, TableHead, useLoad } from '../ui';
import { CashExceptions } from './CashExceptions';
import { WebhookExceptions } from './WebhookExceptions';

/** One page of each list is enough here: these are the orders someone must act on today. */
const LIMIT = 100;

type Query = { status: 'failed' } | { cod_status: 'short' | 'over' } | { far_from_address: true };

function OrderTable({
  title,
  hint,
  query,
  empty,
  detail,
}: {
  title: string;
  hint: string;
  query: Query;
  empty: string;
  detail: (o: Order) => string;
}) {
  const { client, mode } = useSession();
  const list = useLoad(
    () => unwrap(client.GET('/v1/orders', { params: { query: { ...query, limit: LIMIT } } })),
    [mode, JSON.stringify(query)],
  );
  const id = `exc-${Object.entries(query).flat().join('-').replace(/_/g, '-')}`;
  const orders = list.data?.data ?? [];
  return (
    <section aria-labelledby={id} className="exceptions-group">
      <h2 id={id}>
        {title}
        {list.data && <span className="muted"> ({list.data.has_more ? `${LIMIT}+` : orders.length})</span>}
      </h2>
      <p className="muted">{hint}</p>
      <ErrorNote error={list.error} />
      {list.data && orders.length === 0 ? (
        <p className="empty-note">{empty}</p>
      ) : (
        <div className="table-wrap">
          <table className="table" aria-label={title}>
            <TableHead columns={['Order', 'Status', 'Details', 'Updated']} />
            <tbody>
              {orders.map((o) => (
                <tr key={o.id}>
                  <td>
                    <a href={`#/orders/${o.id}`}>{o.customer.name}</a>
                    <br />
                    <small className="muted">
                      {o.tracking_code}
                      {o.external_order_id ? ` · ${o.external_order_id}` : ''}
                    </small>
                  </td>
                  <td>
                    <StatusBadge status={o.status} />
                  </td>
                  <td>{detail(o)}</td>
                  <td>{whenIn(o.updated_at, o.timezone)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {list.data?.has_more && <p className="muted">Showing the newest {LIMIT}.</p>}
    </section>
  );
}

/** Both amounts of a short or over order: the list filtered by cod_status carries the collected one. */
function codDetail(o: Order): string {
  return `to collect ${money(o.cash_on_delivery, o.currency)} · collected ${money(o.collected_amount, o.currency)}`;
}

/**
 * DESIGN §8 "Exceptions": what needs a person. The order lists are server-side filters of
 * GET /v1/orders (status=failed, cod_status=short|over, far_from_address=true); a courier's short or over cash day is
 * listed beside them (DESIGN §17) and resolved with a note; the webhook lists are the carrier's
 * read-only view of failed deliveries and disabled endpoints; all in the session's environment.
 */
export default function Exceptions() {
  return (
    <section aria-labelledby="exceptions-title" className="exceptions">
      <h1 id="exceptions-title">Exceptions</h1>
      <OrderTable
        title="Failed deliveries"
        hint="Failed orders waiting for a reschedule or a return to the merchant. Open one to move it."
        query={{ status: 'failed' }}
        empty="No failed orders."
        detail={(o) =>
          `${o.failure_reason ? o.failure_reason.replace(/_/g, ' ') : 'no reason given'}${o.failure_notes ? `: “${o.failure_notes}”` : ''} · ${plural(o.attempts, 'attempt')}`
        }
      />
      <OrderTable
        title="Cash on delivery short"
        hint="Delivered orders whose courier collected less than the amount to collect."
        query={{ cod_status: 'short' }}
        empty="No short collections."
        detail={codDetail}
      />
      <OrderTable
        title="Cash on delivery over"
        hint="Delivered orders whose courier collected more than the amount to collect."
        query={{ cod_status: 'over' }}
        empty="No over collections."
        detail={codDetail}
      />
      <OrderTable
        title="Far from the address"
        hint="Deliveries and failed attempts the courier's phone placed far from the address, even allowing for its accuracy. Check them with the courier."
        query={{ far_from_address: true }}
        empty="No attempt far from its address."
        detail={(o) => (o.attempt_position ? positionWords(o.attempt_position) : '')}
      />
      <CashExceptions />
      <WebhookExceptions />
    </section>
  );
}
