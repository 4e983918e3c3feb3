import cluster from 'node:cluster';
import { readConfig, type HostConfig } from './host/config';
import { boot, ensureAdmin } from './host/bootstrap';
import { reportFatal } from './host/fatal';
import type { HostRuntime } from './host/app';

/** Migrates, creates the first administrator and seeds the demo when asked; returns the lines to print. */
async function prepare(runtime: HostRuntime, config: HostConfig): Promise<string[]> {
  const firstRun = await ensureAdmin(runtime);
  const demo = process.argv.includes('--demo') ? await runtime.host.commands.get('seed')?.run({ demo: true, ifEmpty: true }) : undefined;
  const base = `${config.siteUrl}/wp-json/${runtime.host.manifest.namespace}`;
  const lines = [`Store is listening on ${base}`, `Discovery index: ${config.siteUrl}/wp-json/`];
  if (config.workers > 1) lines.push(`Serving with ${config.workers} worker processes`);
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
  return [...lines, ...(demo ?? [])];
}

/** One HTTP server with its job runner: the whole store, or one worker of the cluster. */
async function serve(runtime: HostRuntime): Promise<void> {
  await runtime.listen();
  runtime.jobs.start();
  const stop = async () => {
    await runtime.close();
    process.exit(0);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

/**
 * The cluster's primary: prepares the store once, then keeps `workers` processes serving the same port (each is an
 * independent app process, as behind a load balancer) and replaces one that dies.
 */
async function primary(config: HostConfig): Promise<void> {
  const runtime = await boot(config);
  const lines = await prepare(runtime, config);
  await runtime.close();
  let stopping = false;
  let announced = false;
  cluster.on('listening', () => {
    if (!announced) console.log(lines.join('\n'));
    announced = true;
  });
  cluster.on('exit', (worker, code) => {
    if (stopping) return;
    console.error(`worker ${worker.process.pid} exited (${code}); starting another`);
    cluster.fork();
  });
  for (let i = 0; i < config.workers; i++) cluster.fork();
  const stop = () => {
    stopping = true;
    for (const worker of Object.values(cluster.workers ?? {})) worker?.kill('SIGTERM');
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

async function main(): Promise<void> {
  const config = readConfig();
  if (config.workers > 1) {
    if (cluster.isPrimary) await primary(config);
    else await serve(await boot(config));
    return;
  }
  const runtime = await boot(config);
  const lines = await prepare(runtime, config);
  await serve(runtime);
  console.log(lines.join('\n'));
}

main().catch(reportFatal);
