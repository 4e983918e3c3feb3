import { createHost, type HostOverrides, type HostRuntime } from './app';
import { readConfig, type HostConfig } from './config';
import { randomPassword } from './passwords';

/** Creates the host and loads the plugin: the common start of the server and the CLI. */
export async function boot(config: HostConfig = readConfig(), overrides: HostOverrides = {}): Promise<HostRuntime> {
  const runtime = await createHost(config, overrides);
  try {
    await runtime.loadPlugin();
  } catch (error) {
    await runtime.close();
    throw error;
  }
  return runtime;
}

export interface FirstRun {
  login: string;
  password: string | null;
  appPassword: string;
}

/** On an empty site, creates the `admin` user (password from STORE_ADMIN_PASSWORD or generated) and an application password. */
export async function ensureAdmin(runtime: HostRuntime, env: NodeJS.ProcessEnv = process.env): Promise<FirstRun | null> {
  const { db, host } = runtime;
  const existing = await db('users').first('id');
  if (existing) return null;
  const given = env.STORE_ADMIN_PASSWORD;
  const password = given || randomPassword(16);
  const user = await host.users.create({
    login: 'admin',
    email: host.site.admin_email,
    password,
    roles: ['administrator'],
    display_name: 'Administrator',
    email_verified: true,
  });
  const { password: appPassword } = await host.users.appPasswords.create(user.id, 'first-run');
  return { login: user.login, password: given ? null : password, appPassword };
}
