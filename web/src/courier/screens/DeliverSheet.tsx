import { type FormEvent, useRef, useState } from 'react';
import type { Order } from '../../shared/api';
import { newIdempotencyKey } from '../../shared/api';
import { newUuid } from '../../shared/uuid';
import { parseAmount } from '../amount';
import { firstName } from '../format';
import { useSheet } from '../hooks/useSheet';
import { downscale } from '../images';
import type { Entry, FileEntry } from '../queue';
import { type SignatureHandle, SignaturePad } from '../SignaturePad';
import { CashFields } from './CashFields';
import { IdFields } from './IdFields';

// The notes a missing proof leaves on the form; drawing the signature or adding a photo clears its own.
const NEEDS_SIGNATURE = 'This delivery needs a signature.';
const NEEDS_PHOTO = 'This delivery needs a photo.';

/**
 * Deliver with the proof the order requires: receiver, signature, photos, the customer's PIN, the
 * receiver's ID document and age, cash collected. It asks for exactly what the order's
 * `proof_requirements` say (required, offered, or not shown), from the stop saved on the phone, so
 * offline too. The files and the move are queued together; the move names the files by local ids
 * until they are sent. A wrong PIN is only known when the move syncs: the outbox shows it.
 */
export function DeliverSheet({
  order,
  onQueue,
  onClose,
}: {
  order: Order;
  onQueue: (e: Entry[]) => Promise<void>;
  onClose: () => void;
}) {
  const sig = useRef<SignatureHandle>(null);
  const sheet = useSheet(onClose);
  const [photos, setPhotos] = useState<Blob[]>([]);
  const [form, setForm] = useState<Record<string, string>>({
    receiver_name: order.customer.name,
    relationship: 'self',
    payment_method: 'cash',
    collected_amount: order.cash_on_delivery ? String(order.cash_on_delivery) : '',
  });
  const [error, setError] = useState('');
  const [amountError, setAmountError] = useState('');
  const cod = (order.cash_on_delivery ?? 0) > 0;
  const need = proofOf(order);
  const pinState = order.pin?.state ?? null;
  const askPin = need.pin === 'required' && pinState !== 'overridden';
  const askId = need.id_check !== 'off' || need.age_check !== 'off';
  const idRequired = need.id_check === 'required' || need.age_check === 'required';
  const set = (k: string) => (e: { target: { value: string } }) => setForm({ ...form, [k]: e.target.value });

  async function addPhotos(files: FileList | null) {
    if (!files) return;
    const scaled = await Promise.all([...files].map((f) => downscale(f)));
    setPhotos([...photos, ...scaled]);
    if (scaled.length > 0) setError((e) => (e === NEEDS_PHOTO ? '' : e));
  }

  function fileEntry(purpose: FileEntry['purpose'], blob: Blob): FileEntry {
    return {
      kind: 'file',
      localId: newUuid(),
      purpose,
      blob,
      idempotencyKey: newIdempotencyKey(),
      orderId: order.id,
      queuedAt: Date.now(),
    };
  }

  async function submit(e: FormEvent) {
    e.preventDefault();
    setError('');
    setAmountError('');
    // Checked first, at its field: the server would refuse the move only once it syncs, maybe hours later.
    const amount = cod ? parseAmount(form.collected_amount ?? '', order.currency) : { amount: undefined };
    if ('error' in amount) {
      setAmountError(amount.error);
      (e.currentTarget as HTMLFormElement).querySelector<HTMLInputElement>('[name="collected_amount"]')?.focus();
      return;
    }
    const collected = amount.amount;
    const signature = await sig.current?.png();
    if (need.signature === 'required' && !signature) return setError(NEEDS_SIGNATURE);
    if (need.photo === 'required' && photos.length === 0) return setError(NEEDS_PHOTO);
    if (!form.receiver_name?.trim()) return setError('Enter who received the parcel.');
    const pin = form.pin?.trim() ?? '';
    if (askPin && !/^[0-9]{4}$/.test(pin)) return setError('Enter the 4-digit PIN the customer received.');
    const idNumber = form.id_number?.trim() ?? '';
    if (idRequired && (!form.id_type || !idNumber))
      return setError("Enter the receiver's ID document type and number.");
    if (need.age_check === 'required' && form.age !== 'yes') {
      return setError('Check the ID: this parcel may only be handed to someone 18 or older.');
    }
    const entries: Entry[] = [];
    const body: Record<string, unknown> = { receiver_name: form.receiver_name.trim(), relationship: form.relationship };
    if (form.receiver_document?.trim()) body.receiver_document = form.receiver_document.trim();
    if (askPin) body.pin = pin;
    if (askId && form.id_type && idNumber) body.id_document = { type: form.id_type, number: idNumber };
    if (need.age_check !== 'off' && form.age === 'yes') body.age_verified = true;
    if (signature) {
      const file = fileEntry('signature', signature);
      entries.push(file);
      body.signature_file = { $file: file.localId };
    }
    if (photos.length) {
      body.photo_files = photos.map((blob) => {
        const file = fileEntry('photo', blob);
        entries.push(file);
        return { $file: file.localId };
      });
    }
    if (cod) {
      body.collected_amount = collected;
      body.payment_method = form.payment_method;
    }
    entries.push({
      kind: 'move',
      orderId: order.id,
      action: 'deliver',
      body,
      idempotencyKey: newIdempotencyKey(),
      queuedAt: Date.now(),
      to: 'delivered',
    });
    await onQueue(entries);
    onClose();
  }

  return (
    <form
      className="sheet"
      onSubmit={submit}
      onKeyDown={sheet.onKeyDown}
      aria-label={`Deliver to ${firstName(order.customer.name)}`}
    >
      <h2 ref={sheet.heading} tabIndex={-1}>
        Deliver to {order.customer.name}
      </h2>
      <p className="addr">
        {order.delivery_address.address}
        {order.delivery_address.district ? `, ${order.delivery_address.district}` : ''}
      </p>
      <label>
        Received by
        <input name="receiver_name" value={form.receiver_name ?? ''} onChange={set('receiver_name')} required />
      </label>
      {askPin && (
        <label>
          Delivery PIN (required)
          <input
            name="pin"
            inputMode="numeric"
            autoComplete="off"
            maxLength={4}
            pattern="[0-9]{4}"
            value={form.pin ?? ''}
            onChange={set('pin')}
            aria-describedby="pin-help"
          />
          <span id="pin-help" className="muted">
            {pinState === 'locked'
              ? 'The PIN is locked after 5 wrong tries: call dispatch to override it, then deliver.'
              : 'Ask the customer for the 4 digits in their message.'}
          </span>
        </label>
      )}
      <IdFields
        askId={askId}
        idRequired={idRequired}
        need={need}
        form={form}
        onChange={(k, v) => setForm({ ...form, [k]: v })}
      />
      <label>
        Relationship
        <select name="relationship" value={form.relationship} onChange={set('relationship')}>
          {['self', 'family', 'neighbor', 'doorman', 'coworker', 'other'].map((r) => (
            <option key={r}>{r}</option>
          ))}
        </select>
      </label>
      {need.signature !== 'off' && (
        <div>
          <span className="label">Signature{need.signature === 'required' ? ' (required)' : ''}</span>
          <SignaturePad
            ref={sig}
            label="Signature area: sign with your finger"
            onDrawn={() => setError((e) => (e === NEEDS_SIGNATURE ? '' : e))}
          />
          <button type="button" onClick={() => sig.current?.clear()}>
            Clear signature
          </button>
        </div>
      )}
      {need.photo !== 'off' && (
        <div>
          <span className="label">Photos{need.photo === 'required' ? ' (required)' : ''}</span>
          {/* The file input opens the back camera on a phone; it is hidden inside a button-like label. */}
          <label className="camera">
            <svg
              aria-hidden="true"
              width="22"
              height="22"
              viewBox="0 0 24 24"
              fill="none"
              stroke="currentColor"
              strokeWidth="2"
            >
              <path d="M4 8h3l2-3h6l2 3h3v11H4z" />
              <circle cx="12" cy="13" r="3.5" />
            </svg>{' '}
            {photos.length ? 'Take another photo' : 'Take a photo'}
            <input
              name="photos"
              type="file"
              accept="image/*"
              capture="environment"
              multiple
              onChange={(e) => void addPhotos(e.target.files)}
            />
          </label>
          {photos.length > 0 && <p className="muted">{photos.length} photo(s) ready</p>}
        </div>
      )}
      {cod && (
        <CashFields
          order={order}
          amount={form.collected_amount ?? ''}
          method={form.payment_method ?? 'cash'}
          error={amountError}
          onAmount={(v) => {
            setForm({ ...form, collected_amount: v });
            setAmountError('');
          }}
          onMethod={(v) => setForm({ ...form, payment_method: v })}
        />
      )}
      {error && (
        <p className="error-note" role="alert">
          {error}
        </p>
      )}
      <div className="buttons">
        <button type="button" onClick={onClose}>
          Back
        </button>
        <button type="submit" className="primary big">
          Confirm delivery
        </button>
      </div>
    </form>
  );
}

type Levels = Order['proof_requirements'];

/** The order's levels; a stop saved on the phone before the server had them reads from its two flags. */
function proofOf(order: Order): Levels {
  return (
    order.proof_requirements ?? {
      signature: order.requires_signature ? 'required' : 'optional',
      photo: order.requires_photo ? 'required' : 'optional',
      pin: 'off',
      id_check: 'off',
      age_check: 'off',
    }
  );
}
