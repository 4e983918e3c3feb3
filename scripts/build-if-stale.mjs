#!/usr/bin/env node
// Compiles the project (tsc -p tsconfig.build.json) only when a source changed since the last build, so
// `npm start` and `npm run cli` start at once. Plain JavaScript: it runs before anything is compiled.
//   --warn-only  report a failed build but exit 0 (`prepare`: a type error must not fail `npm install`)
//   --force      build even when nothing changed (`npm run build`)
// A build starts from an empty dist/: tsc never deletes the output of a removed or renamed source, and a stale
// compiled migration left there would still run.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SOURCES = ['src', 'migrations', 'hooks', 'bench', 'scripts'];
const CONFIGS = ['tsconfig.json', 'tsconfig.build.json'];
const stamp = path.join(root, 'dist', '.build-stamp');
const warnOnly = process.argv.includes('--warn-only');
const force = process.argv.includes('--force');

/**
 * The newest change among the compiled inputs: every `.ts` file and the folders holding them (a folder's mtime
 * moves when a file in it is added, renamed or deleted).
 */
function newestChange(dir) {
  let newest = 0;
  let holdsTs = false;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestChange(file));
    else if (entry.name.endsWith('.ts')) {
      holdsTs = true;
      newest = Math.max(newest, fs.statSync(file).mtimeMs);
    }
  }
  return holdsTs ? Math.max(newest, fs.statSync(dir).mtimeMs) : newest;
}

function builtAt() {
  try {
    return fs.statSync(stamp).mtimeMs;
  } catch {
    return -1;
  }
}

function finish(message) {
  console.error(`build-if-stale: ${message}`);
  process.exit(warnOnly ? 0 : 1);
}

const sources = Math.max(
  ...SOURCES.map((dir) => path.join(root, dir))
    .filter((dir) => fs.existsSync(dir))
    .map(newestChange),
  ...CONFIGS.map((file) => fs.statSync(path.join(root, file)).mtimeMs),
);
if (!force && builtAt() >= sources) process.exit(0);

let tsc;
try {
  tsc = path.join(path.dirname(createRequire(import.meta.url).resolve('typescript/package.json')), 'bin', 'tsc');
} catch {
  if (fs.existsSync(path.join(root, 'dist', 'src', 'main.js'))) {
    console.error('build-if-stale: typescript is not installed (npm install without dev dependencies?); running the existing build in dist/');
    process.exit(0);
  }
  finish('typescript is not installed, so dist/ cannot be built: run npm install (with dev dependencies)');
}

// The stamp gets the time the build started: a file saved while tsc runs is compiled again next time.
const started = new Date();
fs.rmSync(path.join(root, 'dist'), { recursive: true, force: true });
const result = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
if (result.status !== 0) finish(`tsc failed (exit ${result.status ?? result.signal}); see the errors above`);
fs.writeFileSync(stamp, '');
fs.utimesSync(stamp, started, started);
