import { type FormEvent, useEffect, useState } from 'react';
import { unwrap } from '../../shared/api';
import { useSession } from '../session';
import { errorsOf, type useGuard } from '../ui';
import { EventPicker } from './EventPicker';

/** An API error on `events[3]` belongs to the events list as a whole (the picker shows it). */
export function fieldErrors(err: unknown): Record<string, string> {
  return Object.fromEntries(Object.entries(errorsOf(err)).map(([k, v]) => [k.startsWith('events') ? 'events' : k, v]));
}

type Guard = ReturnType<typeof useGuard>;

/**
 * DESIGN §8: a merchant edits which events an endpoint receives (PATCH /v1/webhook_endpoints/{id}).
 * Saving is one of the page's actions (its guard): a double click sends one PATCH, and no other
 * button of the page runs meanwhile.
 */
export function EndpointEvents({
  id,
  events,
  onSaved,
  guard,
}: {
  id: string;
  events: string[];
  onSaved: () => Promise<unknown>;
  guard: Guard;
}) {
  const { client } = useSession();
  const [draft, setDraft] = useState(events);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [saved, setSaved] = useState('');
  const current = JSON.stringify(events);
  // biome-ignore lint/correctness/useExhaustiveDependencies: reset when the saved list changes
  useEffect(() => setDraft(events), [current]);

  function save(e: FormEvent) {
    e.preventDefault();
    void guard.run('save-events', async () => {
      setErrors({});
      setSaved('');
      try {
        await unwrap(client.PATCH('/v1/webhook_endpoints/{id}', { params: { path: { id } }, body: { events: draft } }));
        setSaved('Events saved.');
        await onSaved();
      } catch (err) {
        setErrors(fieldErrors(err));
      }
    });
  }

  return (
    <form className="endpoint-events" onSubmit={save} aria-labelledby="ep-events" noValidate>
      <h2 id="ep-events">Events</h2>
      <EventPicker legend="Events sent to this endpoint" value={draft} onChange={setDraft} error={errors.events} />
      {errors[''] && (
        <p className="error-note" role="alert">
          {errors['']}
        </p>
      )}
      <div className="buttons">
        <button type="submit" className="primary" disabled={guard.busy !== null || JSON.stringify(draft) === current}>
          Save events
        </button>
        {saved && <span role="status">{saved}</span>}
      </div>
    </form>
  );
}
