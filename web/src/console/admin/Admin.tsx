import { Accounts } from './Accounts';
import { Keys } from './Keys';
import { Users } from './Users';

/**
 * The admin pages of DESIGN §8 (users and invitations, accounts, operator keys) and the merchant's
 * API keys, on the generated client: every call is typed from the OpenAPI document, and a session
 * sends its CSRF token through the client's middleware.
 */

/*
 * No Idempotency-Key on the requests in admin/: a replayable answer is stored as sent, and these answers
 * carry secrets (keys, invitation links) that must exist only as hashes once they are shown.
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
