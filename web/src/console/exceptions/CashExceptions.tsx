import { useState } from 'react';
import { browserZone, money, unwrap, whenIn } from '../../shared/api';
import { useSession } from '../session';
import { ErrorNote, ReasonForm, TableHead, useGuard, useLoad, useRequestKey } from '../ui';

/**
 * DESIGN §17: a courier's day whose cash handed over differs from the cash on delivery it was
 * expected to bring back, shown with what it recorded collecting and the difference, in its currency (GET /v1/cash/exceptions, the last 30 days). An open one is explained with a
 * note (POST /v1/cash/exceptions/{id}/resolve); resolved ones stay readable with their note.
 */
export function CashExceptions() {
  const { client, mode, me } = useSession();
  // Times in the user's zone (the carrier's, else the browser's), named.
  const tz = me?.timezone ?? browserZone();
  const [status, setStatus] = useState<'open' | 'resolved'>('open');
  const list = useLoad(
    () => unwrap(client.GET('/v1/cash/exceptions', { params: { query: { status } } })),
    [mode, status],
  );
  const [error, setError] = useState<unknown>(null);
  const rows = list.data?.data ?? [];
  // One resolve at a time (a ref: the two clicks of a double click send one POST), and one
  // Idempotency-Key per note asked for until it is saved: a retry after a lost answer is the same request.
  const { busy, run } = useGuard();
  const requestKey = useRequestKey();

  function resolve(id: string, note: string) {
    void run(id, async () => {
      setError(null);
      try {
        await unwrap(
          client.POST('/v1/cash/exceptions/{id}/resolve', {
            params: { path: { id } },
            body: { note },
            headers: { 'Idempotency-Key': requestKey.keyFor({ id, note }) },
          }),
        );
        requestKey.done();
        await list.reload();
      } catch (err) {
        setError(err);
      }
    });
  }

  return (
    <section aria-labelledby="exc-cash" className="exceptions-group">
      <h2 id="exc-cash">
        Courier cash short or over
        {list.data && <span className="muted"> ({rows.length})</span>}
      </h2>
      <p className="muted">
        Days a courier handed over more or less cash than its deliveries asked for. Explain each with a note.{' '}
        <label>
          Show{' '}
          <select value={status} onChange={(e) => setStatus(e.target.value as 'open' | 'resolved')}>
            <option value="open">open</option>
            <option value="resolved">resolved</option>
          </select>
        </label>
      </p>
      <ErrorNote error={list.error ?? error} />
      {list.data && rows.length === 0 ? (
        <p className="empty-note">{status === 'open' ? 'No open cash exceptions.' : 'None resolved lately.'}</p>
      ) : (
        <div className="table-wrap">
          <table className="table" aria-label="Courier cash exceptions">
            <TableHead columns={['Courier', 'Day', 'Expected', 'Collected', 'Handed over', 'Difference']} actions />
            <tbody>
              {rows.map((x) => (
                <tr key={x.id}>
                  <td>{x.courier.name}</td>
                  <td>{x.day}</td>
                  <td>{money(x.expected, x.currency)}</td>
                  {/* What the phone recorded collecting: tells a courier who kept cash from one who never got it. */}
                  <td>{money(x.collected, x.currency)}</td>
                  <td>{money(x.handed_over, x.currency)}</td>
                  <td className="error-note">
                    {x.kind} {money(Math.abs(x.difference), x.currency)}
                  </td>
                  <td>
                    {x.resolution ? (
                      <small>
                        {x.resolution.note} <span className="muted">· {whenIn(x.resolution.resolved_at, tz)}</span>
                      </small>
                    ) : (
                      <ReasonForm
                        label={`Resolve ${x.courier.name} ${x.day}`}
                        name="note"
                        fieldLabel="Note"
                        placeholder="Why"
                        action="Resolve"
                        disabled={busy !== null}
                        onSubmit={(note) => resolve(x.id, note)}
                      />
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
