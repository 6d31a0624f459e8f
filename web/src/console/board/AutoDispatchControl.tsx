import { useId, useState } from 'react';
import { unwrap } from '../../shared/api';
import { AUTO_DISPATCH_MODES, type AutoDispatchMode, envText, modeExplain, modeLabel } from '../auto-dispatch';
import { useSession } from '../session';
import { ErrorNote, useGuard, useLoad } from '../ui';

/**
 * The environment's auto-dispatch mode on the board (DESIGN §16, docs/dispatch.md), for the carrier's
 * people: PATCH /v1/dispatch_settings is the carrier's (admins, dispatchers, operator keys), so
 * merchants never get this control. It is the setting of the environment the console is in (its
 * requests carry Ruta-Mode; switching test/live mounts the board again, which reads it anew).
 *
 * Picking a mode only shows its one line of explanation; **Apply** sends it. A select that applied
 * on change would switch `assign` on and off while a keyboard arrows through its options. Apply is
 * guarded (useGuard): a double-click sends one PATCH.
 */
export function AutoDispatchControl({ admin }: { admin: boolean }) {
  const { client, mode } = useSession();
  const settings = useLoad(() => unwrap(client.GET('/v1/dispatch_settings')), [mode]);
  const { busy, run } = useGuard();
  const [choice, setChoice] = useState<AutoDispatchMode | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [saved, setSaved] = useState('');
  const id = useId();
  const current = settings.data?.auto_dispatch;
  const picked = choice ?? current ?? 'off';
  const pending = current !== undefined && picked !== current;
  const overrides = settings.data?.accounts.length ?? 0;

  function apply() {
    const next = picked;
    void run('apply', async () => {
      setError(null);
      setSaved('');
      try {
        const s = await unwrap(client.PATCH('/v1/dispatch_settings', { body: { auto_dispatch: next } }));
        settings.setData(s);
        setChoice(null);
        setSaved(`Auto-dispatch is now ${modeLabel(s.auto_dispatch)} (${envText(mode)}).`);
      } catch (e) {
        setError(e);
      }
    });
  }

  return (
    <form
      className="auto-dispatch"
      aria-label="Auto-dispatch"
      onSubmit={(e) => {
        e.preventDefault();
        apply();
      }}
    >
      <div className="auto-dispatch-row">
        <label htmlFor={`${id}-mode`}>Auto-dispatch ({envText(mode)})</label>
        <select
          id={`${id}-mode`}
          value={picked}
          disabled={!settings.data}
          aria-describedby={`${id}-help`}
          onChange={(e) => {
            setChoice(e.target.value as AutoDispatchMode);
            setSaved('');
            setError(null);
          }}
        >
          {AUTO_DISPATCH_MODES.map((m) => (
            <option key={m.value} value={m.value}>
              {m.label}
            </option>
          ))}
        </select>
        <button type="submit" className="primary" disabled={!pending || busy !== null}>
          {busy ? 'Applying…' : 'Apply'}
        </button>
        <small id={`${id}-help`} className="muted auto-dispatch-help" data-explain={picked}>
          {settings.data ? modeExplain(picked) : settings.error ? '' : 'Loading…'}
          {pending && current ? ` Not applied yet: it is ${modeLabel(current)} until you apply.` : ''}
        </small>
        <span className="small" role="status">
          {saved}
        </span>
      </div>
      {overrides > 0 && (
        <p className="small muted auto-dispatch-overrides">
          {overrides === 1 ? '1 account has its own mode' : `${overrides} accounts have their own mode`}, which wins
          over this one{admin ? ': ' : '.'}
          {admin && <a href="#/admin/accounts">see Accounts</a>}
        </p>
      )}
      <ErrorNote error={error ?? settings.error} />
    </form>
  );
}
