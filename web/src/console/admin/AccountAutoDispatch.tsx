import { useId } from 'react';
import type { Mode, Schemas } from '../../shared/api';
import { AUTO_DISPATCH_MODES, type AutoDispatchMode, envText, modeExplain, modeLabel } from '../auto-dispatch';

type Settings = Schemas['DispatchSettings'];

/** An account's auto-dispatch in one environment: its own override, or null (the carrier's), and the carrier's. */
export interface AccountDispatch {
  own: AutoDispatchMode | null;
  carrier: AutoDispatchMode;
}

/** What GET /v1/dispatch_settings says of one account. */
export function dispatchOf(settings: Settings, account: string): AccountDispatch {
  return {
    own: settings.accounts.find((a) => a.account === account)?.auto_dispatch ?? null,
    carrier: settings.auto_dispatch,
  };
}

/** The Accounts list's cell: "Suggest (its own)" or "The carrier’s (Off)". */
export function dispatchText(d: AccountDispatch): string {
  return d.own ? `${modeLabel(d.own)} (its own)` : `The carrier\u2019s (${modeLabel(d.carrier)})`;
}

/**
 * The account form's choice of the account's override (DESIGN §16, docs/dispatch.md) for the
 * environment the console is in: '' inherits the carrier's mode (the override is removed, the API's
 * null). The form sends it with PATCH /v1/dispatch_settings when it is saved.
 */
export function AutoDispatchField({
  value,
  onChange,
  dispatch,
  mode,
}: {
  value: AutoDispatchMode | '';
  onChange: (v: AutoDispatchMode | '') => void;
  dispatch: AccountDispatch;
  mode: Mode;
}) {
  const id = useId();
  const label = `Auto-dispatch (${envText(mode)})`;
  const effective = value || dispatch.carrier;
  return (
    <div className="grid-form">
      <div className="field">
        <label htmlFor={id}>{label}</label>
        <select
          id={id}
          value={value}
          aria-describedby={`${id}-help`}
          onChange={(e) => onChange(e.target.value as AutoDispatchMode | '')}
        >
          <option value="">{`The carrier\u2019s (now ${modeLabel(dispatch.carrier)})`}</option>
          {AUTO_DISPATCH_MODES.map((m) => (
            <option key={m.value} value={m.value}>
              {`${m.label} for this account`}
            </option>
          ))}
        </select>
        <small id={`${id}-help`} className="muted">
          {value ? '' : `${modeLabel(dispatch.carrier)}, as the carrier’s. `}
          {modeExplain(effective)}
        </small>
      </div>
    </div>
  );
}
