import { parseArgs } from 'node:util';
import type { HostRuntime } from './app';
import { boot } from './bootstrap';
import { readConfig, type HostConfig } from './config';
import { reportFatal } from './fatal';
import { UserError } from './users';

const USAGE = `usage: npm run cli -- <command>
  migrate
  user create --login L --email E --password P [--role R]
  app-password create --login L [--name N]
  role assign --login L --role R`;

type Command = (runtime: HostRuntime, flags: Record<string, string | undefined>) => Promise<string[]>;

function required(flags: Record<string, string | undefined>, ...names: string[]): void {
  const missing = names.filter((n) => !flags[n]);
  if (missing.length) throw new UserError('invalid_user', `missing ${missing.map((n) => `--${n}`).join(', ')}\n${USAGE}`);
}

async function userByLogin(runtime: HostRuntime, login: string) {
  const user = await runtime.host.users.findByLogin(login);
  if (!user) throw new UserError('invalid_user', `no user with login "${login}"`);
  return user;
}

const COMMANDS: Record<string, Command> = {
  async migrate() {
    return ['Migrations are up to date.'];
  },
  async 'user create'(runtime, flags) {
    required(flags, 'login', 'email', 'password');
    const user = await runtime.host.users.create({
      login: flags.login!,
      email: flags.email!,
      password: flags.password!,
      roles: flags.role ? [flags.role] : ['customer'],
    });
    return [`Created user ${user.login} (id ${user.id}) with role ${user.roles.join(', ')}.`];
  },
  async 'app-password create'(runtime, flags) {
    required(flags, 'login');
    const user = await userByLogin(runtime, flags.login!);
    const { password } = await runtime.host.users.appPasswords.create(user.id, flags.name ?? 'cli');
    return [`Application password for ${user.login} (use as HTTP Basic: ${user.login}:<password>):`, password];
  },
  async 'role assign'(runtime, flags) {
    required(flags, 'login', 'role');
    const user = await userByLogin(runtime, flags.login!);
    await runtime.host.users.assignRole(user.id, flags.role!);
    return [`Assigned role ${flags.role} to ${user.login}.`];
  },
};

/** Runs one CLI command; returns the exit code and the lines to print. */
export async function runCli(argv: string[], config: HostConfig = readConfig()): Promise<{ code: number; output: string[] }> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { login: { type: 'string' }, email: { type: 'string' }, password: { type: 'string' }, role: { type: 'string' }, name: { type: 'string' } },
  });
  const name = positionals.join(' ');
  const command = COMMANDS[name];
  if (!command) return { code: 2, output: [name ? `unknown command "${name}"` : 'no command given', USAGE] };
  const runtime = await boot(config);
  try {
    return { code: 0, output: await command(runtime, values) };
  } finally {
    await runtime.close();
  }
}

if (require.main === module) {
  runCli(process.argv.slice(2), { ...readConfig(), logLevel: process.env.LOG_LEVEL ?? 'warn' })
    .then(({ code, output }) => {
      (code === 0 ? console.log : console.error)(output.join('\n'));
      process.exitCode = code;
    })
    .catch(reportFatal);
}
