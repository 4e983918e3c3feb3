import type { Ctx } from '../../core/context';
import { AppError } from '../../core/errors';
import { CommandError, CommandUsageError, type Host, type HostUser } from '../../host/contract';
import { roleCatalog } from './catalog';

const text = { type: 'string' } as const;

function requiredFlags(flags: Record<string, string | boolean | undefined>, ...names: string[]): Record<string, string> {
  const missing = names.filter((name) => typeof flags[name] !== 'string' || flags[name] === '');
  if (missing.length) throw new CommandUsageError(`missing ${missing.map((name) => `--${name}`).join(', ')}`);
  return flags as Record<string, string>;
}

async function userByLogin(host: Host, login: string): Promise<HostUser> {
  const user = await host.users.findByLogin(login);
  if (!user) throw new CommandError(`no user with login "${login}"`);
  return user;
}

/** The role service, loaded when a command runs (other commands start without it). */
const assignments = () => require('./assignments') as typeof import('./assignments');

/** Runs `work` as the system (the operator): the service's refusals become the command's error. */
async function asOperator<T>(host: Host, work: (ctx: Ctx) => Promise<T>): Promise<T> {
  const { systemCtx } = require('../../core/context') as typeof import('../../core/context');
  const { RateLimits } = require('../../core/ratelimit') as typeof import('../../core/ratelimit');
  const ctx = systemCtx(host, new RateLimits(host.db, (error) => host.logger.warn({ err: error }, 'rate-limit counter could not be written')));
  try {
    return await work(ctx);
  } catch (error) {
    if (error instanceof AppError && error.status < 500) throw new CommandError(error.message);
    throw error;
  }
}

/**
 * `role assign` and `role remove`, which the host's own `role assign` yields to: a store role goes through the same
 * service as the API (one store role per user, the `store/role/before_*` vetoes, the after-actions, the activity log);
 * a host role (`administrator`, `customer`) is the host's, as before.
 */
export function registerRoleCommands(host: Host): void {
  host.commands.register('role assign', {
    usage: 'role assign --login L --role R',
    options: { login: text, role: text },
    async run(flags) {
      const { login, role } = requiredFlags(flags, 'login', 'role');
      const user = await userByLogin(host, login);
      if (!roleCatalog(host).get(role)) {
        await host.users.assignRole(user.id, role);
        return [`Assigned role ${role} to ${user.login}.`];
      }
      if (user.roles.includes(role)) return [`${user.login} already has the role ${role}.`];
      const replaced = await asOperator(host, (ctx) => assignments().assignRole(ctx, user.id, role));
      return [`Assigned role ${role} to ${user.login}${replaced.length ? ` (replacing ${replaced.join(', ')})` : ''}.`];
    },
  });
  host.commands.register('role remove', {
    usage: 'role remove --login L --role R',
    options: { login: text, role: text },
    async run(flags) {
      const { login, role } = requiredFlags(flags, 'login', 'role');
      const user = await userByLogin(host, login);
      if (!roleCatalog(host).get(role)) throw new CommandError(`"${role}" is not a store role`);
      if (!user.roles.includes(role)) throw new CommandError(`${user.login} does not have the role ${role}`);
      await asOperator(host, (ctx) => assignments().removeRole(ctx, role, user.id));
      return [`Removed role ${role} from ${user.login}.`];
    },
  });
}
