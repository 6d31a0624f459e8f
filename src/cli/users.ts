import { parseArgs } from 'node:util';
import { findUserByEmail, listUsers } from '../features/people/repo.js';
import { createUser, disableByEmail, presentUser } from '../features/people/users.js';
import { openContext } from '../server.js';
import { USER_ROLES, type UserRole } from '../shared/db/tables/users.js';
import { ApiError } from '../shared/errors.js';
import { randomToken } from '../shared/ids.js';

export const USERS_USAGE = `  users create --email E --name N --role admin|dispatcher|merchant [--account acct_…] [--json]
                                          reads the password from stdin (echo … | ruta users create …),
                                          or generates one and prints it once
  users list [--json]
  users disable EMAIL                     ends the user's sessions at once`;

/** Caught by cli.ts like its own usage errors: exit code 2 and the usage text. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** The whole of stdin when it is piped; nothing on a terminal (a password is then generated). */
async function readStdin(): Promise<string> {
  if (process.stdin.isTTY) return '';
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  // One trailing newline is the shell's, not the password's.
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
}

const when = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

export async function usersCommand(args: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      email: { type: 'string' },
      name: { type: 'string' },
      role: { type: 'string' },
      account: { type: 'string' },
      json: { type: 'boolean' },
    },
  });
  const [verb, arg, extra] = positionals;
  if (extra !== undefined) throw new UsageError(`unexpected argument: ${extra}`);
  const print = (obj: unknown, human: string) => console.log(values.json ? JSON.stringify(obj) : human);

  if (verb === 'create') {
    if (arg !== undefined) throw new UsageError(`unexpected argument: ${arg}`);
    const { email, name, role, account } = values;
    if (!email) throw new UsageError('--email is required');
    if (!name) throw new UsageError('--name is required');
    if (!USER_ROLES.includes(role as UserRole)) throw new UsageError('--role must be admin, dispatcher or merchant');
    const typed = await readStdin();
    const password = typed === '' ? randomToken(20) : typed;
    const { ctx, database } = await openContext();
    try {
      const user = await createUser(ctx, { email, name, role: role as UserRole, account: account ?? null, password });
      const shown = typed === '' ? { password } : {};
      print(
        { user: presentUser(user), ...shown },
        `User ${user.id} (${user.email}, ${user.role}${user.account_id ? ` of ${user.account_id}` : ''}).` +
          (typed === '' ? `\nPassword (shown once; store it now): ${password}` : ''),
      );
    } catch (err) {
      // The service's checks (email taken, short password, missing account) read well as usage errors.
      if (err instanceof ApiError) throw new UsageError(err.message);
      throw err;
    } finally {
      await database.close();
    }
    return;
  }
  if (verb === 'list') {
    if (arg !== undefined) throw new UsageError(`unexpected argument: ${arg}`);
    const { ctx, database } = await openContext();
    try {
      const users = await listUsers(ctx.db);
      const rows = users.map((u) => [u.id, u.email, u.name, u.role, u.account_id ?? '-', u.status, when(u.created_at)]);
      const head = ['ID', 'EMAIL', 'NAME', 'ROLE', 'ACCOUNT', 'STATUS', 'CREATED'];
      const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
      const table = [head, ...rows].map((r) =>
        r
          .map((c, i) => c.padEnd(widths[i] ?? 0))
          .join('  ')
          .trimEnd(),
      );
      print(users.map(presentUser), users.length ? table.join('\n') : 'No users yet.');
    } finally {
      await database.close();
    }
    return;
  }
  if (verb === 'disable') {
    if (!arg) throw new UsageError('users disable needs an EMAIL');
    const { ctx, database } = await openContext();
    try {
      if (!(await findUserByEmail(ctx.db, arg))) throw new UsageError(`no such user: ${arg}`);
      const user = await disableByEmail(ctx, arg);
      print(user && presentUser(user), `User ${arg} disabled; their sessions have ended.`);
    } finally {
      await database.close();
    }
    return;
  }
  throw new UsageError(`unknown command: users ${positionals.join(' ')}`.trim());
}
