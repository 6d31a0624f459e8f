import { useId } from 'react';
import { EVENT_TYPES } from './events';

/**
 * The events of an endpoint as checkboxes: "all" (`*`, which also covers events added later) or a
 * chosen few. An empty choice is allowed here and refused by the API (422 `events`), whose message
 * `error` shows under the list.
 */
export function EventPicker(props: {
  legend: string;
  value: string[];
  onChange: (events: string[]) => void;
  error?: string;
}) {
  const id = useId();
  const all = props.value.includes('*');
  const chosen = new Set(props.value);
  function toggle(name: string, on: boolean) {
    const next = new Set(chosen);
    if (on) next.add(name);
    else next.delete(name);
    props.onChange(EVENT_TYPES.filter((e) => next.has(e)));
  }
  return (
    <fieldset
      className={`event-picker${props.error ? ' has-error' : ''}`}
      aria-describedby={props.error ? `${id}-err` : undefined}
    >
      <legend>{props.legend}</legend>
      <label className="event-all">
        <input
          type="checkbox"
          name="events"
          value="*"
          checked={all}
          onChange={(e) => props.onChange(e.target.checked ? ['*'] : [])}
        />
        All events (*), including ones added later
      </label>
      {!all && (
        <div className="event-grid">
          {EVENT_TYPES.map((name) => (
            <label key={name}>
              <input
                type="checkbox"
                name="events"
                value={name}
                checked={chosen.has(name)}
                onChange={(e) => toggle(name, e.target.checked)}
              />
              {name}
            </label>
          ))}
        </div>
      )}
      {props.error && (
        <p className="field-error" id={`${id}-err`} role="alert">
          {props.error}
        </p>
      )}
    </fieldset>
  );
}
