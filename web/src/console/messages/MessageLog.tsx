import { useState } from 'react';
import { type Schemas, unwrap, whenIn } from '../../shared/api';
import { useSession } from '../session';
import { ErrorNote, StatusBadge, TableHead, useLoad } from '../ui';
import { CHANNELS, TRIGGERS } from './MessageSettings';

type Message = Schemas['Message'];
type Query = { status?: Message['status']; channel?: Message['channel']; trigger?: Message['trigger'] };

const STATUSES: Message['status'][] = ['queued', 'sent', 'delivered', 'failed', 'suppressed'];
const PAGE = 50;

/**
 * Every customer message, newest first (GET /v1/messages), filtered by status, channel, trigger
 * and, for the carrier, account (the picker above). Each row links to its order. Times in the
 * user's zone, named.
 */
export function MessageLog({ account, carrier }: { account: string; carrier: boolean }) {
  const { client, mode, me } = useSession();
  const [q, setQ] = useState<Query>({});
  const [pages, setPages] = useState<Message[][]>([]);
  const filter = { ...q, ...(carrier && account ? { account } : {}) };
  const first = useLoad(async () => {
    setPages([]);
    return unwrap(client.GET('/v1/messages', { params: { query: { ...filter, limit: PAGE } } }));
  }, [mode, account, JSON.stringify(q)]);
  const rows = [...(first.data?.data ?? []), ...pages.flat()];
  const [more, setMore] = useState<boolean | null>(null);
  const hasMore = more ?? first.data?.has_more ?? false;

  async function loadMore() {
    const last = rows[rows.length - 1];
    if (!last) return;
    const page = await unwrap(
      client.GET('/v1/messages', { params: { query: { ...filter, limit: PAGE, starting_after: last.id } } }),
    );
    setPages([...pages, page.data]);
    setMore(page.has_more);
  }
  function set<K extends keyof Query>(k: K, v: string) {
    setMore(null);
    setQ({ ...q, [k]: v || undefined });
  }
  const zone = me?.timezone ?? 'UTC';

  return (
    <>
      <form className="filters" aria-label="Filter messages" onSubmit={(e) => e.preventDefault()}>
        <Pick
          label="Status"
          id="log-status"
          value={q.status}
          options={STATUSES.map((s) => ({ id: s, label: s }))}
          onChange={(v) => set('status', v)}
        />
        <Pick
          label="Channel"
          id="log-channel"
          value={q.channel}
          options={CHANNELS}
          onChange={(v) => set('channel', v)}
        />
        <Pick
          label="Moment"
          id="log-trigger"
          value={q.trigger}
          options={TRIGGERS}
          onChange={(v) => set('trigger', v)}
        />
      </form>
      <ErrorNote error={first.error} />
      {first.data && rows.length === 0 && <p className="muted">No messages match.</p>}
      {rows.length > 0 && (
        <div className="table-wrap">
          <table className="table" aria-label="Messages">
            <TableHead columns={['Order', 'Moment', 'Channel', 'To', 'Status', 'Sent', 'Provider']} />
            <tbody>
              {rows.map((m) => (
                <tr key={m.id} data-message={m.id}>
                  <td>
                    <a href={`#/orders/${m.order}`}>{m.order}</a>
                  </td>
                  <td>{m.trigger.replace(/_/g, ' ')}</td>
                  <td>{m.channel}</td>
                  <td>{m.to ?? '—'}</td>
                  <td>
                    <StatusBadge status={m.status} />
                    {m.reason ? <span className="muted"> {m.reason.replace(/_/g, ' ')}</span> : null}
                  </td>
                  <td>
                    <time dateTime={m.created_at}>{whenIn(m.sent_at ?? m.created_at, zone)}</time>
                  </td>
                  <td>
                    {m.provider}
                    {m.segments > 1 ? ` · ${m.segments} segments` : ''}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {hasMore && (
        <button type="button" onClick={() => void loadMore()}>
          More messages
        </button>
      )}
    </>
  );
}

function Pick(props: {
  label: string;
  id: string;
  value: string | undefined;
  options: { id: string; label: string }[];
  onChange: (v: string) => void;
}) {
  return (
    <div>
      <label htmlFor={props.id}>{props.label}</label>
      <select id={props.id} value={props.value ?? ''} onChange={(e) => props.onChange(e.target.value)}>
        <option value="">All</option>
        {props.options.map((o) => (
          <option key={o.id} value={o.id}>
            {o.label}
          </option>
        ))}
      </select>
    </div>
  );
}
