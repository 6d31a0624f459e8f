import { type FormEvent, Fragment, useState } from 'react';
import { type Schemas, unwrap } from '../../shared/api';
import { useSession } from '../session';
import { ErrorNote, errorsOf, Field, useLoad } from '../ui';
import { accountQuery } from './account';

type Settings = Schemas['NotificationSettings'];
type Trigger = keyof Settings['triggers'];
type Channel = 'sms' | 'whatsapp' | 'email';

export const TRIGGERS: { id: Trigger; label: string }[] = [
  { id: 'order_confirmed', label: 'Order confirmed' },
  { id: 'out_for_delivery', label: 'Out for delivery' },
  { id: 'next_stop', label: 'Next stop' },
  { id: 'delivered', label: 'Delivered' },
  { id: 'failed', label: 'Failed' },
  { id: 'rescheduled', label: 'Rescheduled' },
];
export const CHANNELS: { id: Channel; label: string }[] = [
  { id: 'sms', label: 'SMS' },
  { id: 'whatsapp', label: 'WhatsApp' },
  { id: 'email', label: 'Email' },
];
const PROVIDER: Record<string, string> = {
  log: 'none configured: messages are only logged',
  smtp: 'SMTP',
  twilio: 'Twilio',
  meta: 'Meta WhatsApp Cloud API',
};

/** Triggers × channels, quiet hours and the sender's name; the provider each channel leaves through. */
export function MessageSettings({ account }: { account: string }) {
  const { client, mode } = useSession();
  const loaded = useLoad(
    () => unwrap(client.GET('/v1/notification_settings', { params: { query: accountQuery(account) } })),
    [mode, account],
  );
  if (loaded.error) return <ErrorNote error={loaded.error} />;
  if (!loaded.data) return <p className="muted">Loading…</p>;
  return <SettingsForm key={JSON.stringify(loaded.data)} settings={loaded.data} account={account} />;
}

function SettingsForm({ settings, account }: { settings: Settings; account: string }) {
  const { client } = useSession();
  const [triggers, setTriggers] = useState(settings.triggers);
  const [quiet, setQuiet] = useState(settings.quiet_hours !== null);
  const [start, setStart] = useState(settings.quiet_hours?.start ?? '21:00');
  const [end, setEnd] = useState(settings.quiet_hours?.end ?? '08:00');
  const [sender, setSender] = useState(settings.sender_name ?? '');
  const [country, setCountry] = useState(settings.default_country ?? '');
  const [templates, setTemplates] = useState<Record<string, string>>(settings.whatsapp_templates);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [saved, setSaved] = useState('');
  const [busy, setBusy] = useState(false);

  function toggle(t: Trigger, c: Channel, on: boolean) {
    setTriggers({ ...triggers, [t]: { ...triggers[t], [c]: on } });
    setSaved('');
  }

  async function save(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    setErrors({});
    try {
      await unwrap(
        client.PUT('/v1/notification_settings', {
          params: { query: accountQuery(account) },
          body: {
            triggers,
            quiet_hours: quiet ? { start, end } : null,
            sender_name: sender.trim() || null,
            default_country: country.trim().toUpperCase() || null,
            // Every trigger is sent: an emptied box removes its template (null).
            whatsapp_templates: Object.fromEntries(TRIGGERS.map((t) => [t.id, templates[t.id]?.trim() || null])),
          },
        }),
      );
      setSaved('Saved.');
    } catch (err) {
      setErrors(errorsOf(err));
    } finally {
      setBusy(false);
    }
  }

  return (
    <form onSubmit={save} aria-label="Message settings" noValidate>
      {settings.inherited && (
        <p className="muted">This account has no settings of its own yet: it uses the carrier’s defaults.</p>
      )}
      <div className="table-wrap">
        <table className="table trigger-grid">
          <caption>When a customer gets a message, on which channel</caption>
          <thead>
            <tr>
              <th scope="col">Moment</th>
              {CHANNELS.map((c) => (
                <th scope="col" key={c.id}>
                  {c.label}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {TRIGGERS.map((t) => (
              <tr key={t.id}>
                <th scope="row">{t.label}</th>
                {CHANNELS.map((c) => (
                  <td key={c.id}>
                    <input
                      type="checkbox"
                      aria-label={`${t.label} by ${c.label}`}
                      checked={triggers[t.id][c.id]}
                      onChange={(e) => toggle(t.id, c.id, e.target.checked)}
                    />
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <fieldset className="inline-form">
        <legend>Quiet hours (the depot’s local time; “next stop” and “out for delivery” still go)</legend>
        <label className="check">
          <input type="checkbox" checked={quiet} onChange={(e) => setQuiet(e.target.checked)} /> Hold messages at night
        </label>
        {quiet && (
          <>
            <Field
              label="From"
              name="quiet_hours.start"
              type="time"
              value={start}
              onChange={setStart}
              errors={errors}
            />
            <Field label="Until" name="quiet_hours.end" type="time" value={end} onChange={setEnd} errors={errors} />
          </>
        )}
      </fieldset>
      <div className="inline-form">
        <Field
          label="Sender name (shown in the text and as the email’s sender)"
          name="sender_name"
          value={sender}
          onChange={setSender}
          placeholder="The carrier’s name"
          errors={errors}
        />
        <Field
          label="Country of phone numbers without +code (messages and imports)"
          name="default_country"
          value={country}
          onChange={setCountry}
          placeholder="e.g. PE"
          errors={errors}
        />
      </div>
      <fieldset className="whatsapp-templates">
        <legend>WhatsApp templates</legend>
        <p className="muted">
          WhatsApp delivers a message a business starts only as an approved template. Name each moment’s template:
          Meta’s template name (lower case, e.g. <code>salida_reparto</code>) or Twilio’s Content SID (<code>HX…</code>
          ), with one body variable, which carries the text above. Empty: the text goes free-form, delivered only within
          24 hours of the customer’s last message.
        </p>
        <div className="template-grid">
          {TRIGGERS.map((t) => (
            <Field
              key={t.id}
              label={t.label}
              name={`whatsapp_templates.${t.id}`}
              value={templates[t.id] ?? ''}
              onChange={(v) => {
                setTemplates({ ...templates, [t.id]: v });
                setSaved('');
              }}
              placeholder="none"
              errors={errors}
            />
          ))}
        </div>
      </fieldset>
      <h2>Providers</h2>
      <dl className="fields providers">
        {CHANNELS.map((c) => (
          <Fragment key={c.id}>
            <dt>{c.label}</dt>
            <dd data-provider={settings.providers[c.id]}>{PROVIDER[settings.providers[c.id]]}</dd>
          </Fragment>
        ))}
      </dl>
      <p className="muted">
        Providers are set in the server’s environment (docs/notifications.md). Test mode never sends: every message is
        logged.
      </p>
      <ErrorNote error={errors[''] ? new Error(errors['']) : null} />
      <button type="submit" className="primary" disabled={busy}>
        Save settings
      </button>{' '}
      <span role="status" className="muted">
        {saved}
      </span>
    </form>
  );
}
