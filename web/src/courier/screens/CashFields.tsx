import { money, type Order } from '../../shared/api';

/**
 * Cash on delivery in the deliver sheet: the amount collected and the method. An amount the server
 * would refuse (amount.ts) is said under the field itself, which is marked invalid, so a screen
 * reader reads the reason with it.
 */
export function CashFields({
  order,
  amount,
  method,
  error,
  onAmount,
  onMethod,
}: {
  order: Order;
  amount: string;
  method: string;
  error: string;
  onAmount: (v: string) => void;
  onMethod: (v: string) => void;
}) {
  return (
    <fieldset>
      <legend>Cash on delivery: {money(order.cash_on_delivery, order.currency)}</legend>
      <label className={error ? 'has-error' : undefined}>
        Collected
        <input
          name="collected_amount"
          inputMode="decimal"
          autoComplete="off"
          value={amount}
          onChange={(e) => onAmount(e.target.value)}
          required
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? 'collected-error' : undefined}
        />
      </label>
      {error && (
        <p className="field-error" id="collected-error" role="alert">
          {error}
        </p>
      )}
      <label>
        Method
        <select name="payment_method" value={method} onChange={(e) => onMethod(e.target.value)}>
          {['cash', 'card', 'bank_transfer', 'mobile_wallet'].map((m) => (
            <option key={m} value={m}>
              {m.replace('_', ' ')}
            </option>
          ))}
        </select>
      </label>
    </fieldset>
  );
}
