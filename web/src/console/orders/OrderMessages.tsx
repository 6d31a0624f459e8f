import { unwrap, whenIn } from '../../shared/api';
import { useSession } from '../session';
import { useLoad } from '../ui';

/**
 * The customer's messages of this order (GET /v1/messages?order=), oldest first, as a timeline:
 * trigger, channel, the provider's status and why a message was held back. The carrier reads the
 * addresses masked and the PIN blanked (the API does that).
 */
export function OrderMessages({ orderId, timezone, status }: { orderId: string; timezone: string; status: string }) {
  const { client } = useSession();
  const messages = useLoad(
    () => unwrap(client.GET('/v1/messages', { params: { query: { order: orderId, limit: 100 } } })),
    [orderId, status],
  );
  if (messages.error) {
    return <p className="muted">Messages are not shown here ({(messages.error as Error).message}).</p>;
  }
  const rows = [...(messages.data?.data ?? [])].reverse();
  if (rows.length === 0) return <p className="muted">No customer messages for this order.</p>;
  return (
    <ol className="timeline messages">
      {rows.map((m) => (
        <li key={m.id} data-status={m.status}>
          <strong>{m.trigger.replace(/_/g, ' ')}</strong> · {m.channel} to {m.to ?? 'no address'} ·{' '}
          <span className={`msg-status ${m.status}`}>{m.status}</span>
          {m.reason ? ` (${m.reason.replace(/_/g, ' ')})` : ''} ·{' '}
          <time dateTime={m.created_at}>{whenIn(m.created_at, timezone)}</time>
          {m.delivered_at && <> · delivered {whenIn(m.delivered_at, timezone)}</>}
          <details>
            <summary>Text</summary>
            {m.subject && <p>{m.subject}</p>}
            <p className="msg-body">{m.body}</p>
          </details>
        </li>
      ))}
    </ol>
  );
}
