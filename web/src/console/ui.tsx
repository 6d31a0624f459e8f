import { type ReactNode, useCallback, useEffect, useId, useRef, useState } from 'react';
import { ApiFailure } from '../shared/api';

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
  const msg = error instanceof Error ? error.message : String(error);
  return (
    <p className="error-note" role="alert">
      {msg}
    </p>
  );
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
