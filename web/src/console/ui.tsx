import { type ReactNode, useCallback, useEffect, useId, useRef, useState } from 'react';
import { ApiFailure, newIdempotencyKey } from '../shared/api';

/** A labelled input whose API error (matched by `param`) is shown under it and announced. */
export function Field(props: {
  label: string;
  name: string;
  errors?: Record<string, string>;
  children?: ReactNode;
  type?: string;
  value?: string;
  onChange?: (v: string) => void;
  required?: boolean;
  placeholder?: string;
  autoComplete?: string;
  inputMode?: 'text' | 'decimal' | 'numeric' | 'tel' | 'email';
}) {
  const id = useId();
  const err = props.errors?.[props.name];
  return (
    <div className={`field${err ? ' has-error' : ''}`}>
      <label htmlFor={id}>
        {props.label}
        {props.required ? ' *' : ''}
      </label>
      {props.children ?? (
        <input
          id={id}
          name={props.name}
          type={props.type ?? 'text'}
          value={props.value ?? ''}
          required={props.required}
          placeholder={props.placeholder}
          autoComplete={props.autoComplete}
          inputMode={props.inputMode}
          aria-invalid={err ? true : undefined}
          aria-describedby={err ? `${id}-err` : undefined}
          onChange={(e) => props.onChange?.(e.target.value)}
        />
      )}
      {err && (
        <p className="field-error" id={`${id}-err`} role="alert">
          {err}
        </p>
      )}
    </div>
  );
}

/** Errors keyed by param (the API's path such as customer.name), with '' for those without one. */
export function errorsOf(e: unknown): Record<string, string> {
  if (e instanceof ApiFailure) return { [e.param ?? '']: e.message };
  return { '': e instanceof Error ? e.message : String(e) };
}

export function ErrorNote({ error }: { error: unknown }) {
  if (!error) return null;
  const msg = plainMessage(error);
  return (
    <p className="error-note" role="alert">
      {msg}
    </p>
  );
}

/**
 * The API's message in the dispatcher's words where it speaks to integrators: a refusal of the
 * carrier's people for what only the merchant may do names who can, not which key to use.
 */
export function plainMessage(error: unknown): string {
  if (error instanceof ApiFailure && error.code === 'permission_denied' && /^Operator keys/.test(error.message))
    return 'Only the merchant can do this, from their own console or systems.';
  return error instanceof Error ? error.message : String(error);
}

/**
 * Loads once per `deps` change. A reload of the same thing keeps the last data on screen (no spinner
 * over known data); when `deps` change, the old data goes at once: it is another object's (another
 * order, another environment), and showing it under the new address would be wrong, all the more
 * if the new one turns out not to exist.
 */
export function useLoad<T>(fn: () => Promise<T>, deps: unknown[]) {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<unknown>(null);
  const [loading, setLoading] = useState(true);
  const loadedFor = useRef<string | null>(null);
  const reload = useCallback(async () => {
    const key = JSON.stringify(deps);
    if (loadedFor.current !== key) {
      loadedFor.current = key;
      setData(undefined);
      setError(null);
    }
    setLoading(true);
    try {
      const value = await fn();
      if (loadedFor.current !== key) return;
      setData(value);
      setError(null);
    } catch (e) {
      if (loadedFor.current !== key) return;
      setError(e);
    } finally {
      if (loadedFor.current === key) setLoading(false);
    }
    // biome-ignore lint/correctness/useExhaustiveDependencies: the caller names what the loader depends on
  }, deps);
  useEffect(() => {
    void reload();
  }, [reload]);
  return { data, error, loading, reload, setData };
}

/**
 * One Idempotency-Key per request body until it succeeds: a retry after a lost answer, or a second
 * click, is the same request (the API answers it once and replays that answer), while a body changed
 * after a refusal is a new request with a new key. `keyFor` names the request (its path's ids too, when
 * they vary); `done` once it has succeeded, so that the same body asked again is a new request.
 */
export function useRequestKey() {
  const asked = useRef<{ body: string; key: string } | null>(null);
  const keyFor = useCallback((request: unknown) => {
    const body = JSON.stringify(request);
    if (asked.current?.body !== body) asked.current = { body, key: newIdempotencyKey() };
    return asked.current.key;
  }, []);
  const done = useCallback(() => {
    asked.current = null;
  }, []);
  return { keyFor, done };
}

/**
 * One action at a time: `run` does nothing while an earlier one is in flight, and `busy` names the
 * one running (to disable its button). The guard is a ref, not state: a double-click sends both
 * clicks before React renders the disabled button, and recorded a cash handover twice.
 */
export function useGuard() {
  const running = useRef<string | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const run = useCallback(async (key: string, f: () => Promise<unknown>) => {
    if (running.current !== null) return;
    running.current = key;
    setBusy(key);
    try {
      await f();
    } finally {
      running.current = null;
      setBusy(null);
    }
  }, []);
  return { busy, run };
}

/**
 * A row's one-field form for an action that needs a written why (voiding a cash handover, resolving
 * a cash exception): one text field, required, of at most 500 characters, and its button.
 * `onSubmit` gets the text trimmed; the page decides what an empty one does and asks any confirmation.
 */
export function ReasonForm({
  label,
  name,
  fieldLabel,
  placeholder,
  action,
  disabled,
  onSubmit,
}: {
  /** The form's accessible name, naming the row it acts on. */
  label: string;
  name: string;
  fieldLabel: string;
  placeholder: string;
  action: string;
  disabled: boolean;
  onSubmit: (text: string) => void;
}) {
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        onSubmit(String(new FormData(e.currentTarget).get(name) ?? '').trim());
      }}
      aria-label={label}
    >
      <input name={name} required maxLength={500} placeholder={placeholder} aria-label={fieldLabel} />
      <button type="submit" disabled={disabled}>
        {action}
      </button>
    </form>
  );
}

export function StatusBadge({ status }: { status: string }) {
  return <span className={`badge s-${status}`}>{status.replace(/_/g, ' ')}</span>;
}

/** A table's header row. With `actions`, a last column for each row's buttons, named for screen readers only. */
export function TableHead({ columns, actions = false }: { columns: string[]; actions?: boolean }) {
  return (
    <thead>
      <tr>
        {columns.map((c) => (
          <th scope="col" key={c}>
            {c}
          </th>
        ))}
        {actions && (
          <th scope="col">
            <span className="sr-only">Actions</span>
          </th>
        )}
      </tr>
    </thead>
  );
}

/**
 * A secret or link shown once, with a Copy button: selecting a 60-character token by hand is where
 * people lose a character. The button says "Copied" for a moment, and says so to screen readers.
 */
export function Secret({ value, label }: { value: string; label: string }) {
  const [copied, setCopied] = useState<'yes' | 'failed' | null>(null);
  async function copy() {
    try {
      await navigator.clipboard.writeText(value);
      setCopied('yes');
    } catch {
      // Clipboard access needs a secure context (https or localhost); the text stays selectable.
      setCopied('failed');
    }
    setTimeout(() => setCopied(null), 2500);
  }
  return (
    <span className="secret-row">
      <code className="secret">{value}</code>{' '}
      <button type="button" className="copy" onClick={() => void copy()} aria-label={`Copy ${label}`}>
        Copy
      </button>{' '}
      <span aria-live="polite" className="muted">
        {copied === 'yes' ? 'Copied' : copied === 'failed' ? 'Select the text and copy it' : ''}
      </span>
    </span>
  );
}
