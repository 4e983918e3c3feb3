import { openDatabase } from '../../src/host/database';

/** Checks once that the MariaDB of a database run answers, so a wrong or empty TEST_DATABASE_URL fails fast and clearly. */
export default async function globalSetup(): Promise<void> {
  const url = process.env.TEST_DATABASE_URL;
  // Set but empty is a failed `url=$(scripts/mariadb.sh)`: running on SQLite instead would pass for a MariaDB run.
  if (url === '') throw new Error('TEST_DATABASE_URL is set but empty: the MariaDB URL was not obtained (scripts/mariadb.sh status prints it)');
  if (!url) return;
  const db = await openDatabase(url);
  await db.destroy();
}
