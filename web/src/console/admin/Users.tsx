import { type FormEvent, useState } from 'react';
import { browserZone, type Schemas, unwrap, whenIn } from '../../shared/api';
import { useAccounts } from '../AccountPicker';
import { useSession } from '../session';
import { ErrorNote, errorsOf, Field, Secret, TableHead, useGuard, useLoad, useRequestKey } from '../ui';
import { FormError, ShownOnce } from './shared';

type User = Schemas['User'];
type UserRole = Schemas['UserRole'];

const ROLES: UserRole[] = ['dispatcher', 'admin', 'merchant'];
const FIELDS = new Set(['email', 'role', 'account']);

// Users and invitations

export function Users() {
  const { client, mode, me } = useSession();
  const users = useLoad(() => unwrap(client.GET('/v1/users')), [mode]);
  const invitations = useLoad(() => unwrap(client.GET('/v1/invitations')), [mode]);
  const { list: accountList, nameOf: accountName } = useAccounts();
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<UserRole>('dispatcher');
  const [account, setAccount] = useState('');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [link, setLink] = useState<{ email: string; url: string; expires: string } | null>(null);
  const [rowError, setRowError] = useState<unknown>(null);
  const [invitationError, setInvitationError] = useState<unknown>(null);
  const [resetLink, setResetLink] = useState<{ email: string; url: string; expires: string } | null>(null);
  // Times in the user's zone (the carrier's, else the browser's), named.
  const tz = me?.timezone ?? browserZone();
  // One action at a time (a ref: two clicks in one task send one request): a double click on Invite
  // or Reset password made two links, the first live and never shown. An invitation's body keeps
  // one Idempotency-Key until it succeeds, so a retry after a lost answer makes no second link either.
  const { busy, run } = useGuard();
  const requestKey = useRequestKey();

  function invite(e: FormEvent) {
    e.preventDefault();
    void run('invite', async () => {
      setErrors({});
      setLink(null);
      // The role is always sent (the select's first option is a real choice); the account only for merchants.
      const body = { email, role, ...(role === 'merchant' && account ? { account } : {}) };
      try {
        const inv = await unwrap(
          client.POST('/v1/invitations', { body, headers: { 'Idempotency-Key': requestKey.keyFor(body) } }),
        );
        requestKey.done();
        setLink({ email: inv.email, url: inv.url, expires: inv.expires_at });
        setEmail('');
        await invitations.reload();
      } catch (err) {
        // An error about the request itself (its Idempotency-Key) goes under the form.
        setErrors(Object.fromEntries(Object.entries(errorsOf(err)).map(([p, m]) => [FIELDS.has(p) ? p : '', m])));
      }
    });
  }

  function setStatus(u: User, status: User['status']) {
    void run(u.id, async () => {
      setRowError(null);
      try {
        await unwrap(client.PATCH('/v1/users/{id}', { params: { path: { id: u.id } }, body: { status } }));
        await users.reload();
      } catch (err) {
        setRowError(err);
      }
    });
  }

  // The old password stops working and every session of the user ends at once, so it is confirmed.
  function resetPassword(u: User) {
    void run(u.id, async () => {
      if (!confirm(`Reset the password of ${u.email}? It stops working now, and they are signed out everywhere.`))
        return;
      setRowError(null);
      setResetLink(null);
      try {
        const r = await unwrap(
          client.POST('/v1/users/{id}/password_reset', { params: { path: { id: u.id } }, body: {} }),
        );
        setResetLink({ email: r.email, url: r.url, expires: r.expires_at });
      } catch (err) {
        setRowError(err);
      }
    });
  }

  // Its link stops working at once; re-inviting sends a new one, so no confirmation is asked.
  function revokeInvitation(id: string) {
    void run(id, async () => {
      setInvitationError(null);
      try {
        await unwrap(client.POST('/v1/invitations/{id}/revoke', { params: { path: { id } }, body: {} }));
        await invitations.reload();
      } catch (err) {
        setInvitationError(err);
      }
    });
  }

  return (
    <section aria-labelledby="admin-title">
      <h1 id="admin-title">Users</h1>
      <form className="inline-form" onSubmit={invite} noValidate aria-label="Invite a person">
        <Field label="Email" name="email" type="email" value={email} onChange={setEmail} errors={errors} required />
        <Field label="Role" name="role" errors={errors}>
          <select aria-label="Role" value={role} onChange={(e) => setRole(e.target.value as UserRole)}>
            {ROLES.map((r) => (
              <option key={r}>{r}</option>
            ))}
          </select>
        </Field>
        {role === 'merchant' && (
          <Field label="Account" name="account" errors={errors}>
            <select aria-label="Account" value={account} onChange={(e) => setAccount(e.target.value)}>
              <option value="">—</option>
              {accountList.map((a) => (
                <option key={a.id} value={a.id}>
                  {a.name} ({a.id})
                </option>
              ))}
            </select>
          </Field>
        )}
        <FormError errors={errors} />
        <button type="submit" className="primary" disabled={busy !== null}>
          Invite
        </button>
      </form>
      {link && (
        <ShownOnce>
          <p>
            Invitation link for {link.email}, single use, valid until {whenIn(link.expires, tz)}. It is shown once: send
            it now.
          </p>
          <Secret value={link.url} label="invitation link" />
        </ShownOnce>
      )}
      {resetLink && (
        <ShownOnce>
          <p>
            Password reset link for {resetLink.email}, single use, valid until {whenIn(resetLink.expires, tz)}. It is
            shown once: send it now.
          </p>
          <Secret value={resetLink.url} label="password reset link" />
        </ShownOnce>
      )}
      <ErrorNote error={users.error ?? rowError} />
      <div className="table-wrap">
        <table className="table" aria-label="Users">
          <TableHead columns={['Email', 'Name', 'Role', 'Account', 'Status']} actions />
          <tbody>
            {(users.data?.data ?? []).map((u) => (
              <tr key={u.id}>
                <td>{u.email}</td>
                <td>{u.name}</td>
                <td>{u.role}</td>
                <td>{accountName(u.account)}</td>
                <td>{u.status}</td>
                <td className="buttons">
                  {u.status === 'active' && u.email !== me?.email && (
                    <button type="button" aria-label={`Reset password for ${u.email}`} onClick={() => resetPassword(u)}>
                      Reset password
                    </button>
                  )}
                  {u.status === 'active' ? (
                    <button
                      type="button"
                      className="danger"
                      aria-label={`Disable ${u.email}`}
                      onClick={() => setStatus(u, 'disabled')}
                    >
                      Disable
                    </button>
                  ) : (
                    <button type="button" aria-label={`Enable ${u.email}`} onClick={() => setStatus(u, 'active')}>
                      Enable
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <h2>Open invitations</h2>
      <ErrorNote error={invitations.error ?? invitationError} />
      {invitations.data && invitations.data.data.length === 0 ? (
        <p className="muted">No open invitations.</p>
      ) : (
        <div className="table-wrap">
          <table className="table" aria-label="Open invitations">
            <TableHead columns={['Email', 'Role', 'Account', 'Sent', 'Expires']} actions />
            <tbody>
              {(invitations.data?.data ?? []).map((i) => (
                <tr key={i.id}>
                  <td>{i.email}</td>
                  <td>{i.role}</td>
                  <td>{accountName(i.account)}</td>
                  <td>{whenIn(i.created_at, tz)}</td>
                  <td>{whenIn(i.expires_at, tz)}</td>
                  <td className="buttons">
                    <button
                      type="button"
                      className="danger"
                      aria-label={`Revoke the invitation for ${i.email}`}
                      onClick={() => revokeInvitation(i.id)}
                    >
                      Revoke
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
