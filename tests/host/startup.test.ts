import net from 'node:net';
import { createHost } from '../../src/host/app';
import { ConfigError, readConfig } from '../../src/host/config';
import { openDatabase } from '../../src/host/database';
import { MemoryLogger, testConfig } from '../support/app';
import { createTestDatabase } from '../support/database';

describe('start-up configuration', () => {
  it('defaults: 127.0.0.1:8080, ./data, SQLite under the data directory', () => {
    const config = readConfig({}, '/srv/store');
    expect(config).toMatchObject({ host: '127.0.0.1', port: 8080, dataDir: '/srv/store/data', databaseUrl: 'sqlite:///srv/store/data/store.sqlite' });
  });

  it.each([
    ['a bad PORT', { PORT: 'eighty' }, /PORT must be a number/],
    ['an out-of-range PORT', { PORT: '70000' }, /PORT must be a number/],
  ])('%s is a readable ConfigError', (_name, env, message) => {
    expect(() => readConfig(env)).toThrow(ConfigError);
    expect(() => readConfig(env)).toThrow(message);
  });

  it.each([
    ['not a URL', 'nonsense', /not a valid URL/],
    ['an unsupported database', 'postgres://u:p@127.0.0.1/db', /unsupported database "postgres"/],
    ['a mysql URL without a database', 'mysql://u:p@127.0.0.1:3306/', /must name a database/],
    ['an unreachable database', 'mysql://u:p@127.0.0.1:1/store', /cannot reach the database \(connection refused\)/],
  ])('DATABASE_URL %s: one readable line', async (_name, url, message) => {
    const error = await openDatabase(url).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(message);
    expect((error as Error).message).not.toContain('\n');
  });

  it('a port in use: a readable ConfigError', async () => {
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as net.AddressInfo).port;
    const database = await createTestDatabase();
    const runtime = await createHost({ ...testConfig(), port }, { db: database.db, logger: new MemoryLogger() });
    try {
      await expect(runtime.listen()).rejects.toThrow(new ConfigError(`port ${port} on 127.0.0.1 is already in use`));
    } finally {
      await runtime.close();
      await database.drop();
      blocker.close();
    }
  });
});
