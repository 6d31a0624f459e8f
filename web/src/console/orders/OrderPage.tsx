import { useEffect, useRef } from 'react';
import { ApiFailure, dueText, money, unwrap, whenIn } from '../../shared/api';
import { plural } from '../../shared/text';
import { useSession } from '../session';
import { ErrorNote, plainMessage, StatusBadge, TableHead, useLoad } from '../ui';
import { AttemptPosition } from './AttemptPosition';
import { OrderMessages } from './OrderMessages';
import { Moves } from './OrderMoves';
import { PinStatus, proofWords } from './PinStatus';
import { RouteName } from './RouteName';
import { TimelineMap } from './TimelineMap';

export default function OrderPage({ id }: { id: string }) {
  const { client, me } = useSession();
  const order = useLoad(() => unwrap(client.GET('/v1/orders/{id}', { params: { path: { id } } })), [id]);
  // Asked again after each move (the status), but first once the order is loaded: with the
  // status arriving in its deps, a first ask before it would be followed by a second one.
  const tracking = useLoad(
    async () => (order.data ? unwrap(client.GET('/v1/orders/{id}/tracking', { params: { path: { id } } })) : undefined),
    [id, order.data?.status],
  );
  const proof = useLoad(async () => {
    const s = order.data?.status;
    if (s !== 'delivered' && s !== 'partially_delivered') return null;
    return unwrap(client.GET('/v1/orders/{id}/proof', { params: { path: { id } } }));
  }, [id, order.data?.status]);
  const isCarrier = me?.role !== 'merchant';
  // The event log is the merchant's (GET /v1/events is merchant-only, DESIGN §8): the carrier's
  // people are told so below instead of being sent a request the API refuses with 403. Asked once
  // the order is loaded, so that its status arriving does not ask a second time.
  const events = useLoad(
    async () =>
      isCarrier || !order.data
        ? null
        : unwrap(client.GET('/v1/events', { params: { query: { order: id, limit: 100, include_deliveries: true } } })),
    // A PIN's lock and override are events too.
    [id, isCarrier, order.data?.status, order.data?.pin?.state],
  );
  // The route by its courier and day. Routes are the carrier's: a merchant is answered 404 for the
  // carrier's route (403 in live mode), so it is not asked and reads just "on a route".
  const route = useLoad(async () => {
    const r = order.data?.route;
    if (!r || !isCarrier) return null;
    const { data } = await client.GET('/v1/routes/{id}', { params: { path: { id: r } } });
    return data ?? null;
  }, [id, isCarrier, order.data?.route]);
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);

  const o = order.data;
  if (!o) return order.error ? <ErrorNote error={order.error} /> : <p className="muted">Loading…</p>;
  const a = o.delivery_address;
  const points = (tracking.data?.timeline ?? [])
    .filter((t) => typeof t.lat === 'number' && typeof t.lng === 'number')
    .map((t) => [t.lat!, t.lng!] as [number, number]);
  const dest = typeof a.lat === 'number' && typeof a.lng === 'number' ? ([a.lat, a.lng] as [number, number]) : null;

  return (
    <article className="order-page" aria-labelledby="order-title">
      <p>
        <a href="#/board">← Orders</a>
      </p>
      <h1 id="order-title" ref={heading} tabIndex={-1}>
        {o.customer.name} <StatusBadge status={o.status} />
      </h1>
      <p className="muted">
        {o.tracking_code} · {o.id}
        {o.external_order_id ? ` · ${o.external_order_id}` : ''} · {o.livemode ? 'live' : 'test'}
      </p>
      <section aria-labelledby="moves-title">
        <h2 id="moves-title">Moves</h2>
        <Moves order={o} onMoved={(n) => order.setData(n)} />
      </section>
      <div className="cols">
        <section aria-labelledby="fields-title">
          <h2 id="fields-title">Details</h2>
          <dl className="fields">
            <dt>Address</dt>
            <dd>
              {a.address}
              {a.district ? `, ${a.district}` : ''}
              {a.city ? `, ${a.city}` : ''}
              {a.reference ? <small> ({a.reference})</small> : null}
            </dd>
            <dt>Phone</dt>
            <dd>{o.customer.phone ?? '—'}</dd>
            <dt>Courier</dt>
            <dd>{o.courier ? isCarrier ? <a href="#/couriers">{o.courier.name}</a> : o.courier.name : '—'}</dd>
            <dt>Route</dt>
            <dd>
              <RouteName order={o} route={route.data ?? null} linked={isCarrier} />
            </dd>
            <dt>Packages</dt>
            <dd>
              {o.packages} · {o.weight_kg} kg
            </dd>
            <dt>Cash on delivery</dt>
            <dd>{money(o.cash_on_delivery, o.currency)}</dd>
            <dt>Shipping</dt>
            <dd>{money(o.shipping_cost, o.currency)}</dd>
            <dt>Requested</dt>
            <dd>
              {dueText(o)}
              {o.time_window ? ` ${o.time_window.start}–${o.time_window.end}` : ''}
            </dd>
            <dt>Proof</dt>
            <dd>{proofWords(o)}</dd>
            <dt>Delivery PIN</dt>
            <dd>
              <PinStatus order={o} onChanged={(n) => order.setData(n)} />
            </dd>
            <dt>Attempts</dt>
            <dd>{o.attempts}</dd>
            {o.attempts > 0 && (
              <>
                <dt>Position</dt>
                <dd>
                  <AttemptPosition order={o} />
                </dd>
              </>
            )}
            {o.failure_reason && (
              <>
                <dt>Failure</dt>
                <dd>
                  {o.failure_reason.replace(/_/g, ' ')}
                  {o.failure_notes && (
                    <>
                      : <q>{o.failure_notes}</q>
                    </>
                  )}
                </dd>
              </>
            )}
            {o.delivery_instructions && (
              <>
                <dt>Customer's instructions</dt>
                <dd>{o.delivery_instructions}</dd>
              </>
            )}
            {o.safe_place && (
              <>
                <dt>Safe place</dt>
                <dd>{o.safe_place}</dd>
              </>
            )}
            {o.feedback && (
              <>
                <dt>Customer's rating</dt>
                <dd>
                  <span aria-hidden="true">{'★'.repeat(o.feedback.rating) + '☆'.repeat(5 - o.feedback.rating)}</span>{' '}
                  <span className="sr-only">{o.feedback.rating} of 5</span>
                  {o.feedback.comment ? ` “${o.feedback.comment}”` : ''}
                </dd>
              </>
            )}
            {o.cancellation_reason && (
              <>
                <dt>Cancelled</dt>
                <dd>{o.cancellation_reason}</dd>
              </>
            )}
            <dt>Created</dt>
            <dd>{whenIn(o.created_at, o.timezone)}</dd>
          </dl>
        </section>
        <section aria-labelledby="timeline-title">
          <h2 id="timeline-title">Timeline</h2>
          {tracking.data?.eta_minutes != null && <p>ETA about {tracking.data.eta_minutes} min</p>}
          <ol className="timeline">
            {(tracking.data?.timeline ?? []).map((t) => (
              <li key={`${t.status}-${t.occurred_at}`}>
                <StatusBadge status={t.status} />{' '}
                <time dateTime={t.occurred_at}>{whenIn(t.occurred_at, o.timezone)}</time>
              </li>
            ))}
          </ol>
          <TimelineMap
            points={points}
            dest={dest}
            attempt={
              o.attempt_position
                ? {
                    at: [o.attempt_position.lat, o.attempt_position.lng],
                    far: o.attempt_position.far_from_address === true,
                  }
                : null
            }
          />
        </section>
      </div>
      {proof.data && (
        <section aria-labelledby="proof-title">
          <h2 id="proof-title">Proof of delivery</h2>
          <p>
            Received by {proof.data.receiver_name}
            {proof.data.relationship ? ` (${proof.data.relationship})` : ''} on{' '}
            {whenIn(proof.data.delivered_at, o.timezone)}
            {proof.data.collected_amount != null &&
              ` · collected ${money(proof.data.collected_amount, o.currency)} by ${proof.data.payment_method} (${proof.data.cod_status})`}
            {proof.data.id_document && ` · ID ${proof.data.id_document.type} ${proof.data.id_document.number}`}
            {proof.data.age_verified && ' · 18+ checked'}
            {proof.data.pin && ` · PIN ${proof.data.pin}`}
          </p>
          <div className="proof-images">
            {proof.data.signature_url && <img src={proof.data.signature_url} alt="Signature" className="signature" />}
            {proof.data.photo_urls.map((u, i) => (
              <img key={u} src={u} alt={`Taken at delivery (${i + 1})`} />
            ))}
          </div>
        </section>
      )}
      <section aria-labelledby="messages-title">
        <h2 id="messages-title">Customer messages</h2>
        <OrderMessages orderId={o.id} timezone={o.timezone} status={`${o.status}/${o.pin?.state}`} />
      </section>
      <section aria-labelledby="events-title">
        <h2 id="events-title">Events and webhook deliveries</h2>
        {isCarrier || events.error ? (
          <p className="muted">
            {isCarrier || (events.error instanceof ApiFailure && events.error.code === 'permission_denied')
              ? "The events and their webhook deliveries are the merchant's: they see them on their Webhooks page."
              : plainMessage(events.error)}
          </p>
        ) : (
          <table className="table">
            <TableHead columns={['Event', 'At', 'Deliveries']} />
            <tbody>
              {(events.data?.data ?? []).map((ev) => (
                <tr key={ev.id}>
                  <td>
                    {ev.event}
                    <br />
                    <small className="muted">{ev.id}</small>
                  </td>
                  <td>{whenIn(ev.created_at, o.timezone)}</td>
                  <td>
                    {(ev.deliveries ?? []).length === 0 && <span className="muted">no endpoint</span>}
                    {(ev.deliveries ?? []).map((d) => (
                      <div key={d.id}>
                        <a href={`#/webhooks/${d.endpoint}`}>{d.endpoint}</a>: {d.status},{' '}
                        {plural(d.attempts, 'attempt')}
                        {d.last_error ? ` (${d.last_error})` : ''}
                      </div>
                    ))}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
    </article>
  );
}
