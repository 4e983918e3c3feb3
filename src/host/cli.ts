#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { readConfig, type HostConfig } from './config';
import { CommandUsageError, type CliCommand } from './contract';
import { reportFatal } from './fatal';
import { codeRoot } from './paths';
import { loadCommands } from './plugin-loader';
import { createHostServices, type HostServices } from './services';
import { UserError, type UserStore } from './users';

function required(flags: Record<string, string | boolean | undefined>, ...names: string[]): Record<string, string> {
  const missing = names.filter((n) => typeof flags[n] !== 'string' || flags[n] === '');
  if (missing.length) throw new UserError('invalid_user', `missing ${missing.map((n) => `--${n}`).join(', ')}`);
  return flags as Record<string, string>;
}

const text = { type: 'string' } as const;

/** The host's own commands; plugins add theirs through `host.commands`. */
function hostCommands(users: UserStore): Record<string, CliCommand> {
  const userByLogin = async (login: string) => {
    const user = await users.findByLogin(login);
    if (!user) throw new UserError('invalid_user', `no user with login "${login}"`);
    return user;
  };
  return {
    migrate: { usage: 'migrate', options: {}, run: async () => ['Migrations are up to date.'] },
    'user create': {
      usage: 'user create --login L --email E --password P [--role R]',
      options: { login: text, email: text, password: text, role: text },
      async run(flags) {
        const { login, email, password } = required(flags, 'login', 'email', 'password');
        const role = typeof flags.role === 'string' ? flags.role : 'customer';
        // The operator vouches for the address, as an administrator creating a user does.
        const user = await users.create({ login, email, password, roles: [role], email_verified: true });
        return [`Created user ${user.login} (id ${user.id}) with role ${user.roles.join(', ')}.`];
      },
    },
    'user verify-email': {
      usage: 'user verify-email --login L',
      options: { login: text },
      async run(flags) {
        const user = await users.markEmailVerified((await userByLogin(required(flags, 'login').login)).id);
        return [`The email address ${user.email} of ${user.login} is verified.`];
      },
    },
    'app-password create': {
      usage: 'app-password create --login L [--name N]',
      options: { login: text, name: text },
      async run(flags) {
        const user = await userByLogin(required(flags, 'login').login);
        const { password } = await users.appPasswords.create(user.id, typeof flags.name === 'string' ? flags.name : 'cli');
        return [`Application password for ${user.login} (use as HTTP Basic: ${user.login}:<password>):`, password];
      },
    },
    'role assign': {
      usage: 'role assign --login L --role R',
      options: { login: text, role: text },
      async run(flags) {
        const { login, role } = required(flags, 'login', 'role');
        const user = await userByLogin(login);
        await users.assignRole(user.id, role);
        return [`Assigned role ${role} to ${user.login}.`];
      },
    },
  };
}

/**
 * The host's services with the plugin migrated and its commands registered (the manifest's light `commands`
 * module): no Express app and no REST routes, so a command starts in a fraction of the server's start-up.
 */
async function openForCommands(config: HostConfig): Promise<HostServices> {
  const services = await createHostServices(config);
  try {
    await services.migratePlugin();
    await loadCommands(codeRoot, services.host.manifest).register(services.host);
  } catch (error) {
    await services.close();
    throw error;
  }
  return services;
}

/** Runs one CLI command; returns the exit code and the lines to print. */
export async function runCli(argv: string[], config: HostConfig = readConfig()): Promise<{ code: number; output: string[] }> {
  const { positionals } = parseArgs({ args: argv, allowPositionals: true, strict: false });
  const services = await openForCommands(config);
  try {
    const commands = new Map([...Object.entries(hostCommands(services.users)), ...services.host.commands.list()]);
    const name = [positionals.slice(0, 2).join(' '), positionals[0]].find((candidate) => candidate && commands.has(candidate));
    const usage = ['usage: npm run cli -- <command>', ...[...commands.values()].map((c) => `  ${c.usage}`)].join('\n');
    if (!name) return { code: 2, output: [positionals.length ? `unknown command "${positionals.join(' ')}"` : 'no command given', usage] };
    const command = commands.get(name)!;
    let flags: Record<string, string | boolean | undefined>;
    try {
      flags = parseArgs({ args: argv, allowPositionals: true, options: command.options }).values;
    } catch (error) {
      return { code: 2, output: [(error as Error).message, `usage: npm run cli -- ${command.usage}`] };
    }
    try {
      return { code: 0, output: await command.run(flags) };
    } catch (error) {
      if (error instanceof CommandUsageError || (error instanceof UserError && error.message.startsWith('missing --'))) {
        return { code: 2, output: [error.message, `usage: npm run cli -- ${command.usage}`] };
      }
      throw error;
    }
  } finally {
    await services.close();
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
