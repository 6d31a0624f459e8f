import { type FormEvent, useEffect, useState } from 'react';
import { type Schemas, unwrap } from '../../shared/api';
import { plural } from '../../shared/text';
import { useSession } from '../session';
import { ErrorNote, errorsOf, useLoad } from '../ui';
import { accountQuery } from './account';
import { CHANNELS, TRIGGERS } from './MessageSettings';

type Settings = Schemas['NotificationSettings'];
type Trigger = keyof Settings['triggers'];
type Channel = 'sms' | 'whatsapp' | 'email';
type Locale = 'es' | 'en' | 'pt';
type Preview = Schemas['NotificationPreview'];

const LOCALES: { id: Locale; label: string }[] = [
  { id: 'es', label: 'Español' },
  { id: 'en', label: 'English' },
  { id: 'pt', label: 'Português' },
];

/** One template at a time (trigger, channel, locale), edited beside its preview with sample values. */
export function MessageTemplates({ account }: { account: string }) {
  const { client, mode } = useSession();
  const loaded = useLoad(
    () => unwrap(client.GET('/v1/notification_settings', { params: { query: accountQuery(account) } })),
    [mode, account],
  );
  const [trigger, setTrigger] = useState<Trigger>('out_for_delivery');
  const [channel, setChannel] = useState<Channel>('sms');
  const [locale, setLocale] = useState<Locale>('es');
  if (loaded.error) return <ErrorNote error={loaded.error} />;
  const s = loaded.data;
  if (!s) return <p className="muted">Loading…</p>;
  const pick = `${trigger}.${channel}.${locale}`;
  return (
    <>
      <fieldset className="inline-form plain">
        <legend className="sr-only">Which template</legend>
        <Select label="Moment" value={trigger} options={TRIGGERS} onChange={(v) => setTrigger(v as Trigger)} />
        <Select label="Channel" value={channel} options={CHANNELS} onChange={(v) => setChannel(v as Channel)} />
        <Select label="Language" value={locale} options={LOCALES} onChange={(v) => setLocale(v as Locale)} />
      </fieldset>
      <Editor
        key={pick}
        settings={s}
        account={account}
        trigger={trigger}
        channel={channel}
        locale={locale}
        onSaved={(next) => loaded.setData(next)}
      />
    </>
  );
}

function Select(props: {
  label: string;
  value: string;
  options: { id: string; label: string }[];
  onChange: (v: string) => void;
}) {
  const id = `tpl-${props.label.toLowerCase()}`;
  return (
    <div className="field">
      <label htmlFor={id}>{props.label}</label>
      <select id={id} value={props.value} onChange={(e) => props.onChange(e.target.value)}>
        {props.options.map((o) => (
          <option key={o.id} value={o.id}>
            {o.label}
          </option>
        ))}
      </select>
    </div>
  );
}

function Editor(props: {
  settings: Settings;
  account: string;
  trigger: Trigger;
  channel: Channel;
  locale: Locale;
  onSaved: (s: Settings) => void;
}) {
  const { client } = useSession();
  const { settings, account, trigger, channel, locale } = props;
  const current = settings.templates[trigger][channel][locale];
  const [subject, setSubject] = useState(current.subject ?? '');
  const [body, setBody] = useState(current.body);
  const [preview, setPreview] = useState<Preview | null>(null);
  const [previewError, setPreviewError] = useState<unknown>(null);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [saved, setSaved] = useState('');
  const email = channel === 'email';
  const template = email ? { subject, body } : { body };

  // The preview follows the text as it is typed; an answer to older text is dropped.
  // biome-ignore lint/correctness/useExhaustiveDependencies: the template's text is what it follows
  useEffect(() => {
    let live = true;
    const timer = setTimeout(() => {
      unwrap(
        client.POST('/v1/notification_settings/preview', {
          params: { query: accountQuery(account) },
          body: { trigger, channel, locale, template },
        }),
      ).then(
        (p) => {
          if (!live) return;
          setPreview(p);
          setPreviewError(null);
        },
        (e) => live && setPreviewError(e),
      );
    }, 150);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [subject, body]);

  async function put(value: { subject?: string; body: string } | null) {
    setErrors({});
    try {
      const next = await unwrap(
        client.PUT('/v1/notification_settings', {
          params: { query: accountQuery(account) },
          body: { templates: { [trigger]: { [channel]: { [locale]: value } } } },
        }),
      );
      props.onSaved(next);
      // Back to the shipped text: the editor shows it.
      const now = next.templates[trigger][channel][locale];
      setSubject(now.subject ?? '');
      setBody(now.body);
      setSaved(value ? 'Template saved.' : 'The shipped text is back.');
    } catch (e) {
      setErrors(errorsOf(e));
    }
  }
  function save(e: FormEvent) {
    e.preventDefault();
    void put(template);
  }
  const fieldError = Object.values(errors)[0];

  return (
    <div className="template-editor">
      <form onSubmit={save} aria-label="Template" noValidate>
        <p className="muted">
          {current.custom ? 'This account’s own text.' : 'The shipped text.'} Variables:{' '}
          {settings.variables.map((v) => `{{${v}}}`).join(' ')}
        </p>
        {email && (
          <div className="field">
            <label htmlFor="tpl-subject">Subject</label>
            <input id="tpl-subject" value={subject} onChange={(e) => setSubject(e.target.value)} />
          </div>
        )}
        <div className="field">
          <label htmlFor="tpl-body">Text</label>
          <textarea
            id="tpl-body"
            rows={7}
            value={body}
            aria-invalid={fieldError ? true : undefined}
            aria-describedby={fieldError ? 'tpl-body-err' : undefined}
            onChange={(e) => setBody(e.target.value)}
          />
          {fieldError && (
            <p className="field-error" id="tpl-body-err" role="alert">
              {fieldError}
            </p>
          )}
        </div>
        <button type="submit" className="primary">
          Save template
        </button>{' '}
        {current.custom && (
          <button type="button" onClick={() => void put(null)}>
            Use the shipped text
          </button>
        )}{' '}
        <span role="status" className="muted">
          {saved}
        </span>
      </form>
      <section className="card preview" aria-labelledby="preview-title" aria-live="polite">
        <h2 id="preview-title">Preview</h2>
        {previewError ? (
          <p className="field-error">{(previewError as Error).message}</p>
        ) : preview ? (
          <>
            {preview.subject && <p className="preview-subject">{preview.subject}</p>}
            <p className="msg-body">{preview.body}</p>
            <p className="muted" data-testid="segments">
              {email
                ? `${preview.length} characters`
                : `${preview.length} characters · ${preview.encoding} · ${plural(preview.segments, 'SMS segment')}`}
            </p>
          </>
        ) : (
          <p className="muted">Rendering…</p>
        )}
      </section>
    </div>
  );
}
