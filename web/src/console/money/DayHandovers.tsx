import { money, type Schemas, unwrap, whenIn } from '../../shared/api';
import { useSession } from '../session';
import { ReasonForm, TableHead, type useGuard, useRequestKey } from '../ui';

type Handover = Schemas['CashEndOfDayHandover'];

/**
 * The handovers that count for the day shown on the Money page (GET /v1/cash/end_of_day's
 * `handovers`), with who received each and when it was recorded. One recorded wrong is voided with a
 * reason after a confirmation. The page's courier cash owns what they share with its handover
 * forms: the guard (one action at a time, handovers and voids alike), the error note and the reload.
 */
export function DayHandovers({
  day,
  tz,
  handovers,
  guard,
  onError,
  reload,
}: {
  day: string;
  tz: string;
  handovers: Handover[];
  guard: ReturnType<typeof useGuard>;
  onError: (err: unknown) => void;
  reload: () => Promise<unknown>;
}) {
  const { client } = useSession();
  const { busy, run } = guard;
  const requestKey = useRequestKey();
  // A handover recorded wrong is voided, never deleted: it stays listed, struck through, with why.
  const voidIt = (h: Handover, reason: string) => {
    if (!reason) return;
    const what = `${money(h.amount, h.currency)} from ${h.courier_name} (received by ${h.received_by})`;
    if (!confirm(`Void the handover of ${what}? It will count for nothing; it stays listed as voided.`)) return;
    return run(h.id, async () => {
      onError(null);
      try {
        await unwrap(
          client.POST('/v1/cash_handovers/{id}/void', {
            params: { path: { id: h.id } },
            body: { reason },
            headers: { 'Idempotency-Key': requestKey.keyFor({ id: h.id, reason }) },
          }),
        );
      } catch (err) {
        onError(err);
      }
      // Voided, or voided by someone else first (409): either way the day as it now stands.
      await reload();
    });
  };
  return (
    <>
      <h3>Handovers of {day}</h3>
      <div className="table-wrap">
        <table className="table" aria-label={`Handovers of ${day}`}>
          <TableHead columns={['Courier', 'Amount', 'Received by', 'Recorded', 'Status']} actions />
          <tbody>
            {handovers.map((h) => {
              // A voided handover's figures struck through: still there to read, counted nowhere.
              const cell = (text: string) => (h.voided_at ? <s>{text}</s> : text);
              return (
                <tr key={h.id} data-handover={h.id} className={h.voided_at ? 'muted' : undefined}>
                  <td>{cell(h.courier_name)}</td>
                  <td className="amount">{cell(money(h.amount, h.currency))}</td>
                  <td>{cell(h.received_by)}</td>
                  <td>{whenIn(h.created_at, tz)}</td>
                  <td>{h.voided_at ? `Voided ${whenIn(h.voided_at, tz)}: ${h.void_reason ?? ''}` : 'Counts'}</td>
                  <td>
                    {!h.voided_at && (
                      <ReasonForm
                        label={`Void the handover ${h.id}`}
                        name="reason"
                        fieldLabel="Reason"
                        placeholder="Why void it"
                        action="Void"
                        disabled={busy === h.id}
                        onSubmit={(reason) => voidIt(h, reason)}
                      />
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </>
  );
}
