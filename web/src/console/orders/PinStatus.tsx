import { type FormEvent, useState } from 'react';
import { newIdempotencyKey, type Order, unwrap } from '../../shared/api';
import { plural } from '../../shared/text';
import { useSession } from '../session';
import { errorsOf } from '../ui';

const LEVEL_WORDS = { required: 'required', optional: 'offered', off: null } as const;

/** What delivering the order asks for (its proof_requirements), in words. */
export function proofWords(o: Order): string {
  const names = { signature: 'signature', photo: 'photo', pin: 'PIN', id_check: 'ID document', age_check: '18+ check' };
  const parts = (Object.keys(names) as (keyof typeof names)[])
    .map((k) => {
      const level = LEVEL_WORDS[o.proof_requirements[k]];
      return level && `${names[k]} (${level})`;
    })
    .filter(Boolean);
  return parts.join(', ') || '—';
}

/**
 * The delivery PIN's state: set, locked (five wrong tries) or overridden, never the PIN itself to
 * the carrier (the API does not give it; a merchant's own user sees it). A locked PIN has the
 * override button, which asks for the reason the order's history keeps.
 */
export function PinStatus({ order, onChanged }: { order: Order; onChanged: (o: Order) => void }) {
  const { client, me } = useSession();
  const [open, setOpen] = useState(false);
  const [reason, setReason] = useState('');
  const [error, setError] = useState('');
  const pin = order.pin;
  if (!pin) return <>—</>;

  async function override(e: FormEvent) {
    e.preventDefault();
    setError('');
    try {
      const next = await unwrap(
        client.POST('/v1/orders/{id}/pin_override', {
          params: { path: { id: order.id } },
          body: { reason: reason.trim() },
          headers: { 'Idempotency-Key': newIdempotencyKey() },
        }),
      );
      setOpen(false);
      onChanged(next);
    } catch (err) {
      setError(Object.values(errorsOf(err))[0] ?? 'Refused');
    }
  }

  const tries = plural(pin.attempts, 'wrong try', 'wrong tries');
  const words = {
    set: `set · ${tries}`,
    locked: `locked after ${tries}: the courier cannot deliver until it is overridden`,
    overridden: `overridden by a dispatcher (after ${tries})`,
  }[pin.state];
  return (
    <span className="pin-status" data-state={pin.state}>
      {order.delivery_pin ? <strong>{order.delivery_pin}</strong> : null} {words}
      {pin.state === 'locked' && me?.role !== 'merchant' && !open && (
        <>
          {' '}
          <button type="button" onClick={() => setOpen(true)}>
            Override PIN
          </button>
        </>
      )}
      {open && (
        <form onSubmit={override} className="inline-form">
          <label>
            Why (kept in the order's history)
            <input
              name="override_reason"
              value={reason}
              maxLength={500}
              onChange={(e) => setReason(e.target.value)}
              required
            />
          </label>
          <button type="submit" className="primary" disabled={!reason.trim()}>
            Override
          </button>
          <button type="button" onClick={() => setOpen(false)}>
            Cancel
          </button>
          {error && (
            <span className="error-note" role="alert">
              {error}
            </span>
          )}
        </form>
      )}
    </span>
  );
}
