/**
 * Runs the fuzzer of the test suite (`tests/fuzz/routes.fuzz.test.ts`, README "Fuzzing") with other settings:
 *
 *   npm run fuzz -- --runs 20000               20,000 requests with a new random seed (printed)
 *   npm run fuzz -- --runs 3000 --seed 42      a run that can be repeated exactly
 *   npm run fuzz -- --seed 42 --path "17:3:0"  replays (and shrinks further) one failure the fuzzer printed
 *   npm run fuzz -- --keep-going               on a failure, goes on to list every kind of failure it finds
 *
 * The settings reach jest as FUZZ_RUNS, FUZZ_SEED, FUZZ_PATH and FUZZ_KEEP_GOING; TEST_DATABASE_URL (MariaDB) passes
 * through. Exits with jest's status.
 */
import { spawnSync } from 'node:child_process';
import { parseArgs } from 'node:util';
import { findPackageRoot } from '../src/host/paths';

const USAGE = 'usage: npm run fuzz -- [--runs N] [--seed S] [--path P] [--keep-going]';
const FUZZ_TEST = 'tests/fuzz/routes.fuzz.test.ts';

function main(): number {
  let values: { runs?: string; seed?: string; path?: string; 'keep-going'?: boolean };
  try {
    ({ values } = parseArgs({
      options: { runs: { type: 'string' }, seed: { type: 'string' }, path: { type: 'string' }, 'keep-going': { type: 'boolean' } },
      strict: true,
    }));
  } catch (error) {
    console.error(`error: ${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  for (const name of ['runs', 'seed'] as const) {
    const value = values[name];
    if (value !== undefined && !(/^\d{1,10}$/.test(value) && Number(value) >= (name === 'runs' ? 1 : 0))) {
      console.error(`error: --${name} must be a whole number${name === 'runs' ? ' from 1' : ''}\n${USAGE}`);
      return 2;
    }
  }
  // A longer run is for exploring: a new seed each time, unless one is given to repeat a run.
  const seed = values.seed ?? String(Math.floor(Math.random() * 2 ** 31));
  console.log(`fuzz: seed ${seed}${values.runs ? `, ${values.runs} requests` : ''}${values.path ? `, path ${values.path}` : ''}`);
  const jest = require.resolve('jest/bin/jest');
  const result = spawnSync(process.execPath, [jest, '--runInBand', FUZZ_TEST], {
    cwd: findPackageRoot(),
    stdio: 'inherit',
    env: {
      ...process.env,
      FUZZ_RUNS: values.runs ?? '',
      FUZZ_SEED: seed,
      FUZZ_PATH: values.path ?? '',
      FUZZ_KEEP_GOING: values['keep-going'] ? '1' : '',
    },
  });
  return result.status ?? 1;
}

process.exitCode = main();
