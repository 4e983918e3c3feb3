import { readConfig } from './host/config';
import { boot, ensureAdmin } from './host/bootstrap';
import { reportFatal } from './host/fatal';

async function main(): Promise<void> {
  const config = readConfig();
  const runtime = await boot(config);
  const firstRun = await ensureAdmin(runtime);
  const demo = process.argv.includes('--demo') ? await runtime.host.commands.get('seed')?.run({ demo: true, ifEmpty: true }) : undefined;
  await runtime.listen();
  runtime.jobs.start();

  const base = `${config.siteUrl}/wp-json/${runtime.host.manifest.namespace}`;
  const lines = [`Store is listening on ${base}`, `Discovery index: ${config.siteUrl}/wp-json/`];
  if (firstRun) {
    lines.push(
      `Created the administrator "${firstRun.login}"${firstRun.password ? ` with password: ${firstRun.password}` : ' (password from STORE_ADMIN_PASSWORD)'}`,
      `Application password for API calls (shown once): ${firstRun.appPassword}`,
      `Try: curl -u '${firstRun.login}:${firstRun.appPassword}' ${base}/products`,
    );
  } else {
    lines.push(
      `Authenticate with an application password: npm run cli -- app-password create --login admin`,
      `then: curl -u 'admin:<password>' ${base}/products`,
    );
  }
  console.log([...lines, ...(demo ?? [])].join('\n'));

  const stop = async () => {
    await runtime.close();
    process.exit(0);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch(reportFatal);
