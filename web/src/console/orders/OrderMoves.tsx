import { type FormEvent, useEffect, useState } from 'react';
import { type Action, allowedMoves, FAILURE_REASONS } from '../../../../src/features/lifecycle/transitions.js';
import { ACTION_LABEL, allCouriers, type Courier, newIdempotencyKey, type Order, unwrap } from '../../shared/api';
import { useSession } from '../session';
import { errorsOf } from '../ui';

type Client = ReturnType<typeof useSession>['client'];

/** The request body each move needs, from the small form shown for it. */
function bodyFor(action: Action, f: Record<string, string>): Record<string, unknown> {
  switch (action) {
    case 'assign':
      return { courier_id: f.courier_id };
    case 'fail':
      return { reason: f.reason || 'other', ...(f.notes ? { notes: f.notes } : {}) };
    case 'reschedule':
      // A day as picked: the server reads it in the order's zone (never midnight UTC).
      return { requested_date: f.requested_date ?? '' };
    case 'cancel':
      return f.reason ? { reason: f.reason } : {};
    case 'return':
      return f.notes ? { notes: f.notes } : {};
    case 'deliver':
      return { receiver_name: f.receiver_name ?? '' };
    default:
      return {};
  }
}

async function move(client: Client, id: string, action: Action, body: Record<string, unknown>): Promise<Order> {
  // The action is one of the table's: the path is typed by a cast, the body checked by the server.
  const path = `/v1/orders/{id}/${action}` as '/v1/orders/{id}/validate';
  return unwrap(
    client.POST(path, {
      params: { path: { id } },
      body: body as never,
      headers: { 'Idempotency-Key': newIdempotencyKey() },
    }),
  );
}

export function Moves({ order, onMoved }: { order: Order; onMoved: (o: Order) => void }) {
  const { client, me } = useSession();
  const [open, setOpen] = useState<Action | null>(null);
  const [form, setForm] = useState<Record<string, string>>({});
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [couriers, setCouriers] = useState<Courier[]>([]);
  const moves = allowedMoves(order.status);
  const needsForm: Action[] = ['assign', 'fail', 'reschedule', 'cancel', 'return', 'deliver'];

  useEffect(() => {
    if (open === 'assign' && couriers.length === 0 && me?.role !== 'merchant')
      allCouriers(client).then(setCouriers, () => {});
  }, [open, client, couriers.length, me?.role]);

  async function run(action: Action, e?: FormEvent) {
    e?.preventDefault();
    setErrors({});
    try {
      onMoved(await move(client, order.id, action, bodyFor(action, form)));
      setOpen(null);
      setForm({});
    } catch (err) {
      setErrors(errorsOf(err));
    }
  }

  const set = (k: string) => (e: { target: { value: string } }) => setForm({ ...form, [k]: e.target.value });

  if (moves.length === 0) return <p className="muted">No moves: this order is finished.</p>;
  return (
    <div className="moves">
      <div className="buttons">
        {moves.map((a) => (
          <button
            key={a}
            type="button"
            className={a === 'cancel' ? 'danger' : open === a ? 'primary' : ''}
            aria-expanded={needsForm.includes(a) ? open === a : undefined}
            onClick={() => (needsForm.includes(a) ? setOpen(open === a ? null : a) : void run(a))}
          >
            {ACTION_LABEL[a]}
          </button>
        ))}
      </div>
      {open && (
        <form className="move-form" onSubmit={(e) => void run(open, e)} aria-label={ACTION_LABEL[open]}>
          {open === 'assign' && (
            <label>
              Courier
              <select required value={form.courier_id ?? ''} onChange={set('courier_id')}>
                <option value="">Choose…</option>
                {couriers.map((c) => (
                  <option key={c.id} value={c.id}>
                    {c.name}
                  </option>
                ))}
              </select>
            </label>
          )}
          {open === 'fail' && (
            <>
              <label>
                Reason
                <select value={form.reason ?? 'customer_absent'} onChange={set('reason')}>
                  {FAILURE_REASONS.map((r) => (
                    <option key={r} value={r}>
                      {r.replace(/_/g, ' ')}
                    </option>
                  ))}
                </select>
              </label>
              <label>
                Notes
                <input value={form.notes ?? ''} onChange={set('notes')} />
              </label>
            </>
          )}
          {open === 'reschedule' && (
            <label>
              New date
              <input type="date" required value={form.requested_date ?? ''} onChange={set('requested_date')} />
              <small className="muted">{order.timezone}</small>
            </label>
          )}
          {(open === 'cancel' || open === 'return') && (
            <label>
              {open === 'cancel' ? 'Reason' : 'Notes'}
              <input
                value={form[open === 'cancel' ? 'reason' : 'notes'] ?? ''}
                onChange={set(open === 'cancel' ? 'reason' : 'notes')}
              />
            </label>
          )}
          {open === 'deliver' && (
            <label>
              Receiver name
              <input required value={form.receiver_name ?? ''} onChange={set('receiver_name')} />
            </label>
          )}
          <button type="submit" className="primary">
            {ACTION_LABEL[open]}
          </button>
        </form>
      )}
      {Object.entries(errors).map(([param, msg]) => (
        <p key={param} className="error-note" role="alert">
          {param ? `${param}: ` : ''}
          {msg}
        </p>
      ))}
    </div>
  );
}
