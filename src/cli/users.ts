import { findUserByEmail, listUsers } from '../features/people/repo.js';
import { createUser, disableByEmail, presentUser } from '../features/people/users.js';
import { USER_ROLES, type UserRole } from '../shared/db/tables/users.js';
import { ApiError } from '../shared/errors.js';
import { randomToken } from '../shared/ids.js';
import { type Command, table, UsageError, type Values, when, withContext } from './command.js';

// `ruta users …`: the first admin, and users on a machine without the console.

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

const print = (values: Values, obj: unknown, human: string) => console.log(values.json ? JSON.stringify(obj) : human);
const json = { json: { type: 'boolean' } } as const;

export const userCommands: Command[] = [
  {
    name: 'users create',
    usage: `  users create --email E --name N --role admin|dispatcher|merchant [--account acct_…] [--json]
                                          reads the password from stdin (echo … | ruta users create …),
                                          or generates one and prints it once`,
    options: {
      email: { type: 'string' },
      name: { type: 'string' },
      role: { type: 'string' },
      account: { type: 'string' },
      ...json,
    },
    plan({ values }) {
      const { email, name, role, account } = values;
      if (typeof email !== 'string' || !email) throw new UsageError('--email is required');
      if (typeof name !== 'string' || !name) throw new UsageError('--name is required');
      if (!USER_ROLES.includes(role as UserRole)) throw new UsageError('--role must be admin, dispatcher or merchant');
      return async () => {
        const typed = await readStdin();
        const password = typed === '' ? randomToken(20) : typed;
        await withContext(async (ctx) => {
          const user = await createUser(ctx, {
            email,
            name,
            role: role as UserRole,
            account: typeof account === 'string' ? account : null,
            password,
          }).catch((err: unknown) => {
            // The service's checks (email taken, short password, missing account) read well as usage errors.
            throw err instanceof ApiError ? new UsageError(err.message) : err;
          });
          const shown = typed === '' ? { password } : {};
          print(
            values,
            { user: presentUser(user), ...shown },
            `User ${user.id} (${user.email}, ${user.role}${user.account_id ? ` of ${user.account_id}` : ''}).` +
              (typed === '' ? `\nPassword (shown once; store it now): ${password}` : ''),
          );
        });
      };
    },
  },
  {
    name: 'users list',
    usage: '  users list [--json]',
    options: json,
    plan:
      ({ values }) =>
      () =>
        withContext(async (ctx) => {
          const users = await listUsers(ctx.db);
          const rows = users.map((u) => [
            u.id,
            u.email,
            u.name,
            u.role,
            u.account_id ?? '-',
            u.status,
            when(u.created_at),
          ]);
          const head = ['ID', 'EMAIL', 'NAME', 'ROLE', 'ACCOUNT', 'STATUS', 'CREATED'];
          print(values, users.map(presentUser), users.length ? table(head, rows) : 'No users yet.');
        }),
  },
  {
    name: 'users disable',
    usage: "  users disable EMAIL                     ends the user's sessions at once",
    options: json,
    args: ['EMAIL'],
    plan({ values, args: [email] }) {
      if (!email) throw new UsageError('users disable needs an EMAIL');
      return () =>
        withContext(async (ctx) => {
          if (!(await findUserByEmail(ctx.db, email))) throw new UsageError(`no such user: ${email}`);
          const user = await disableByEmail(ctx, email);
          print(values, user && presentUser(user), `User ${email} disabled; their sessions have ended.`);
        });
    },
  },
];
