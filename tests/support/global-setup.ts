import { openDatabase } from '../../src/host/database';

/** Checks once that the MariaDB of a database run answers, so a wrong TEST_DATABASE_URL fails fast and clearly. */
export default async function globalSetup(): Promise<void> {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) return;
  const db = await openDatabase(url);
  await db.destroy();
}
