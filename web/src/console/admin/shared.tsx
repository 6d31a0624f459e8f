import type { ReactNode } from 'react';

/** Secrets and invitation links exist in one answer only: shown here, once. */
export function ShownOnce({ children }: { children: ReactNode }) {
  return (
    <div className="note shown-once" role="status">
      {children}
    </div>
  );
}

export function FormError({ errors }: { errors: Record<string, string> }) {
  if (!errors['']) return null;
  return (
    <p className="error-note" role="alert">
      {errors['']}
    </p>
  );
}
