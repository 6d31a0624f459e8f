import { Accounts } from './Accounts';
import { Keys } from './Keys';
import { Users } from './Users';

/**
 * The admin pages of DESIGN §8 (users and invitations, accounts, operator keys) and the merchant's
 * API keys, on the generated client: every call is typed from the OpenAPI document, and a session
 * sends its CSRF token through the client's middleware.
 */

/*
 * A key or an invitation is asked for with an Idempotency-Key (one per body until it succeeds) and one
 * action at a time (useGuard): a double click or a retry creates one, never a second secret nobody saw.
 * The server keeps no copy of these answers (`answersSecret`, src/shared/idempotency.ts): a replay is
 * refused with `idempotent_secret_withheld`, the secret shown only by the first answer.
 */

export default function Admin({ section }: { section: string }) {
  switch (section) {
    case 'accounts':
      return <Accounts />;
    case 'operator-keys':
      return <Keys title="Operator keys" />;
    case 'keys':
      return <Keys title="API keys" />;
    default:
      return <Users />;
  }
}
