import { money } from '../../shared/api';
import type { SavedCash } from '../storage';

/**
 * What the courier holds (DESIGN §17): per currency, today's cash collected and handed over, and the
 * balance now. Offline (or when the last read failed) the last known figures, with their time.
 */
export function CashCard({ cash, fresh }: { cash: SavedCash | null; fresh: boolean }) {
  if (!cash) return null;
  const { data, at } = cash;
  if (data.balances.length === 0) return null;
  // In the phone's zone, named, as every time a person reads.
  const time = new Date(at).toLocaleTimeString(undefined, {
    hour: '2-digit',
    minute: '2-digit',
    timeZoneName: 'short',
  });
  const day = new Date(at).toLocaleDateString();
  return (
    <section className="cash" aria-labelledby="cash-title">
      <h2 id="cash-title">My cash</h2>
      {/* A big amount (eight digits of pesos) or a large font makes the table wider than a 360 px
          phone: it scrolls inside its box, never the whole page sideways. */}
      <div className="cash-table">
        <table aria-label="My cash">
          <thead>
            <tr>
              <th scope="col">Currency</th>
              <th scope="col">Collected today</th>
              <th scope="col">Handed over today</th>
              <th scope="col">Balance</th>
            </tr>
          </thead>
          <tbody>
            {data.balances.map((b) => {
              const today = data.days.find((d) => d.day === data.to && d.currency === b.currency);
              return (
                <tr key={b.currency}>
                  <th scope="row">{b.currency}</th>
                  <td>{money(today?.collected ?? 0, b.currency)}</td>
                  <td>{money(today?.handed_over ?? 0, b.currency)}</td>
                  <td>
                    <strong>{money(b.balance, b.currency)}</strong>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      {!fresh && (
        <p className="muted" role="note">
          Last known at {day === new Date().toLocaleDateString() ? time : `${day} ${time}`}
        </p>
      )}
    </section>
  );
}
