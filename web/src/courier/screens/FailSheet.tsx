import { type FormEvent, useState } from 'react';
import { FAILURE_REASONS } from '../../../../src/features/lifecycle/transitions.js';
import type { Order } from '../../shared/api';
import { newIdempotencyKey } from '../../shared/api';
import { useSheet } from '../hooks/useSheet';
import type { Entry } from '../queue';

/** A failed attempt: a reason from the API's list and free notes, queued as one move. */
export function FailSheet({
  order,
  onQueue,
  onClose,
}: {
  order: Order;
  onQueue: (e: Entry[]) => Promise<void>;
  onClose: () => void;
}) {
  const sheet = useSheet(onClose);
  const [reason, setReason] = useState<string>('customer_absent');
  const [notes, setNotes] = useState('');
  async function submit(e: FormEvent) {
    e.preventDefault();
    await onQueue([
      {
        kind: 'move',
        orderId: order.id,
        action: 'fail',
        body: { reason, ...(notes.trim() ? { notes: notes.trim() } : {}) },
        idempotencyKey: newIdempotencyKey(),
        queuedAt: Date.now(),
        to: 'failed',
      },
    ]);
    onClose();
  }
  return (
    <form className="sheet" onSubmit={submit} onKeyDown={sheet.onKeyDown} aria-label="Failed attempt">
      <h2 ref={sheet.heading} tabIndex={-1}>
        Could not deliver · {order.tracking_code}
      </h2>
      <label>
        Reason
        <select name="reason" value={reason} onChange={(e) => setReason(e.target.value)}>
          {FAILURE_REASONS.map((r) => (
            <option key={r} value={r}>
              {r.replace(/_/g, ' ')}
            </option>
          ))}
        </select>
      </label>
      <label>
        Notes
        <textarea name="notes" value={notes} onChange={(e) => setNotes(e.target.value)} />
      </label>
      <div className="buttons">
        <button type="button" onClick={onClose}>
          Back
        </button>
        <button type="submit" className="danger big">
          Record failed attempt
        </button>
      </div>
    </form>
  );
}
