import type { LocationProblem } from '../hooks/useDutyLocation';
import type { Explained } from '../refusals';

/** A delivery refused for its PIN after it synced: the parcel is not delivered, and the courier must know at once. */
const PIN_WORDS: Record<string, string> = {
  pin_mismatch: 'Wrong PIN: the delivery was NOT recorded. Ask the customer for the PIN again and deliver again. ',
  pin_locked: 'PIN locked: the delivery was NOT recorded. Call dispatch to override the PIN, then deliver again. ',
};

/** The app opened over plain http (a Wi-Fi address): what the browser withholds, and the way out. */
const INSECURE =
  'This page is open over http, not https: the phone cannot share its location, use the camera, or open the app without a connection. Deliveries still work. Ask your dispatcher for Ruta’s https address.';

const LOCATION_WORDS: Record<NonNullable<LocationProblem>, string> = {
  denied:
    'Location is blocked: dispatch cannot see where you are. Allow location for this site in your browser or phone settings.',
  unsupported: 'This browser cannot share your location: dispatch cannot see where you are.',
  insecure: `Dispatch cannot see where you are. ${INSECURE}`,
};

/** Who is signed in, the network, the duty switch and sign-out; under it, the sync state and refusals. */
export function TopBar({
  name,
  online,
  onDuty,
  onDutyChange,
  onSignOut,
  waiting,
  onSync,
  failed,
  onDismiss,
  note,
  locationProblem = null,
}: {
  name: string;
  online: boolean;
  onDuty: boolean;
  onDutyChange: (on: boolean) => void;
  onSignOut: () => void;
  waiting: number;
  onSync: () => void;
  /** The refusals still to show (refusals.ts): those already done elsewhere are a note instead. */
  failed: Explained[];
  onDismiss: (seq: number) => void;
  note: string;
  /** Why the phone sends no position while on duty (useDutyLocation). */
  locationProblem?: LocationProblem;
}) {
  return (
    <>
      <header className="c-top">
        <div>
          <strong title={name}>{name}</strong>
          <span className={`net ${online ? 'on' : 'off'}`}>{online ? 'Online' : 'Offline'}</span>
        </div>
        <label className="duty">
          <input type="checkbox" checked={onDuty} onChange={(e) => onDutyChange(e.target.checked)} />
          On duty
        </label>
        <button type="button" onClick={onSignOut}>
          Sign out
        </button>
      </header>
      <div className={`sync${waiting ? ' waiting' : ''}`} role="status" aria-live="polite">
        {waiting ? `${waiting} waiting to sync` : 'All synced'}
        {waiting > 0 && online && (
          <button type="button" onClick={onSync}>
            Sync now
          </button>
        )}
      </div>
      {onDuty && locationProblem && (
        <p className="error-note" role="alert">
          {LOCATION_WORDS[locationProblem]}
        </p>
      )}
      {!onDuty && !window.isSecureContext && (
        <p className="note" data-insecure>
          {INSECURE}
        </p>
      )}
      {failed.map(({ failure: f, text }) => (
        <p key={f.seq} className="error-note" role="alert" data-code={f.code} data-order={f.orderId}>
          {PIN_WORDS[f.code ?? ''] ? `${PIN_WORDS[f.code ?? '']}${f.message}` : text}{' '}
          <button type="button" onClick={() => onDismiss(f.seq)}>
            Dismiss
          </button>
        </p>
      ))}
      {/* Always in the page, empty or not: a screen reader announces a live region whose text
          changes, not one that appears with its text. The note is not inside the sync status,
          so each is said once. */}
      <div role="status" aria-live="polite" data-note>
        {note && <p className="note">{note}</p>}
      </div>
    </>
  );
}
