import type { Mode, Schemas } from '../shared/api';

export type AutoDispatchMode = Schemas['AutoDispatchMode'];

/**
 * The auto-dispatch modes of DESIGN §16 (docs/dispatch.md), each with the one line that says what it
 * does: the board's control (board/AutoDispatchControl.tsx) and an account's override
 * (admin/AccountAutoDispatch.tsx) show the same words.
 */
export const AUTO_DISPATCH_MODES: { value: AutoDispatchMode; label: string; explain: string }[] = [
  { value: 'off', label: 'Off', explain: 'Nothing automatic: dispatchers assign every order.' },
  {
    value: 'suggest',
    label: 'Suggest',
    explain: 'A new order opens its suggested couriers on the board; one click assigns.',
  },
  {
    value: 'assign',
    label: 'Assign',
    explain: 'A worker inserts each same-day order into the best courier\u2019s route within 30 s.',
  },
];

export function modeLabel(m: AutoDispatchMode): string {
  return AUTO_DISPATCH_MODES.find((x) => x.value === m)?.label ?? m;
}

export function modeExplain(m: AutoDispatchMode): string {
  return AUTO_DISPATCH_MODES.find((x) => x.value === m)?.explain ?? '';
}

/** "test data" / "live": which environment's setting a control changes. */
export const envText = (mode: Mode) => (mode === 'test' ? 'test data' : 'live');
