import fs from 'node:fs';
import path from 'node:path';

/** Where the running code lives: the repository root under the test runner, `dist/` when compiled. */
export const codeRoot = path.resolve(__dirname, '..', '..');

/** The plugin package root (the folder holding plugin.json, templates/ and package.json). */
export function findPackageRoot(from = codeRoot): string {
  let dir = from;
  while (!fs.existsSync(path.join(dir, 'plugin.json'))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`plugin.json not found above ${from}`);
    dir = parent;
  }
  return dir;
}
