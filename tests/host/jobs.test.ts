import type { Knex } from 'knex';
import { MovableClock, sqlTimestamp } from '../../src/host/clock';
import type { JobInfo, Logger } from '../../src/host/contract';
import { dialectOf, openDatabase } from '../../src/host/database';
import { JobQueue, type JobQueueOptions } from '../../src/host/jobs';
import { HOST_MIGRATIONS, migrateDirectory } from '../../src/host/migrate';
import * as hostTables from '../../src/host/migrations/20261121000000_host_tables';
import * as jobLeases from '../../src/host/migrations/20261122000000_job_leases';
import { createTestDatabase, type TestDatabase } from '../support/database';

declare module '../../src/host/contract' {
  interface JobMap {
    'test/echo': { value: string; n: number };
    'test/flaky': { key: string };
    'test/always-fails': { key: string };
    'test/tick': { every: string };
    'test/record': { n: number };
    'test/unhandled': { x: number };
  }
}

interface Entry {
  level: 'debug' | 'info' | 'warn' | 'error';
  obj: unknown;
  msg?: string;
}

class RecordingLogger implements Logger {
  readonly entries: Entry[] = [];
  debug(obj: unknown, msg?: string) {
    this.entries.push({ level: 'debug', obj, msg });
  }
  info(obj: unknown, msg?: string) {
    this.entries.push({ level: 'info', obj, msg });
  }
  warn(obj: unknown, msg?: string) {
    this.entries.push({ level: 'warn', obj, msg });
  }
  error(obj: unknown, msg?: string) {
    this.entries.push({ level: 'error', obj, msg });
  }
}

interface JobRowFull {
  id: number;
  name: string;
  payload: string;
  status: string;
  run_at: string;
  attempts: number;
  max_attempts: number;
  unique_key: string | null;
  locked_by: string | null;
  locked_at: string | null;
  locked_until: string | null;
  last_error: string | null;
  finished_at: string | null;
}

const START = '2026-11-21T10:00:00Z';
const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR_MS = 60 * MINUTE;

let database: TestDatabase;
let db: Knex;

beforeAll(async () => {
  database = await createTestDatabase();
  db = database.db;
  await migrateDirectory(db, HOST_MIGRATIONS, 'host_migrations');
});

afterAll(async () => {
  await database?.drop();
});

beforeEach(async () => {
  await db('jobs').delete();
  await db('job_schedules').delete();
});

function setup(start: string = START, options: JobQueueOptions = {}) {
  const clock = new MovableClock(start);
  const logger = new RecordingLogger();
  const queue = new JobQueue(db, clock, logger, options);
  return { clock, logger, queue };
}

function later(clock: MovableClock, ms: number): string {
  return sqlTimestamp(new Date(clock.now().getTime() + ms));
}

/** Polls until `check` holds (the heartbeat runs on real timers); fails with `what` after two seconds. */
async function waitFor(what: string, check: () => Promise<boolean>): Promise<void> {
  for (let waited = 0; !(await check()); waited += 5) {
    if (waited > 2000) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve: () => void = () => undefined;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

async function row(id: number | null): Promise<JobRowFull> {
  expect(id).not.toBeNull();
  const found = (await db('jobs').where({ id }).first()) as JobRowFull | undefined;
  if (!found) throw new Error(`job ${id} not found`);
  return { ...found, id: Number(found.id), attempts: Number(found.attempts), max_attempts: Number(found.max_attempts) };
}

async function countJobs(where: Record<string, unknown> = {}): Promise<number> {
  const [{ n }] = (await db('jobs').where(where).count({ n: '*' })) as Array<{ n: number | string }>;
  return Number(n);
}

describe('JobQueue', () => {
  it('runs an enqueued job with its payload, once, and marks it done', async () => {
    const { clock, queue } = setup();
    const calls: Array<{ payload: { value: string; n: number }; job: JobInfo }> = [];
    queue.define('test/echo', async (payload, job) => {
      calls.push({ payload, job });
    });

    const id = await queue.enqueue('test/echo', { value: 'héllo', n: 42 });
    expect(typeof id).toBe('number');
    expect((await row(id)).status).toBe('pending');

    expect(await queue.runDue()).toBe(1);
    expect(calls).toEqual([
      { payload: { value: 'héllo', n: 42 }, job: { id, name: 'test/echo', attempts: 1, maxAttempts: 5, signal: expect.any(AbortSignal) } },
    ]);
    expect(calls[0].job.signal.aborted).toBe(false);
    const done = await row(id);
    expect(done).toMatchObject({ status: 'done', attempts: 1, locked_by: null, last_error: null, finished_at: sqlTimestamp(clock.now()) });

    expect(await queue.runDue()).toBe(0);
    expect(calls).toHaveLength(1);
  });

  it('does not run delayed jobs (delayMs, runAt) before their time', async () => {
    const { clock, queue } = setup();
    const ran: string[] = [];
    queue.define('test/echo', async ({ value }) => {
      ran.push(value);
    });

    const delayed = await queue.enqueue('test/echo', { value: 'in a minute', n: 1 }, { delayMs: MINUTE });
    const later = await queue.enqueue('test/echo', { value: 'at noon', n: 2 }, { runAt: new Date('2026-11-21T12:00:00Z') });
    expect((await row(delayed)).run_at).toBe('2026-11-21 10:01:00');
    expect((await row(later)).run_at).toBe('2026-11-21 12:00:00');

    expect(await queue.runDue()).toBe(0);
    clock.advance(59 * SECOND);
    expect(await queue.runDue()).toBe(0);
    clock.advance(SECOND);
    expect(await queue.runDue()).toBe(1);
    expect(ran).toEqual(['in a minute']);

    clock.set('2026-11-21T11:59:59Z');
    expect(await queue.runDue()).toBe(0);
    clock.set('2026-11-21T12:00:00Z');
    expect(await queue.runDue()).toBe(1);
    expect(ran).toEqual(['in a minute', 'at noon']);
    expect((await row(later)).status).toBe('done');
  });

  it('retries a failing job with exponential backoff and keeps the last error', async () => {
    const { clock, logger, queue } = setup();
    const seen: number[] = [];
    queue.define(
      'test/flaky',
      async (_payload, job) => {
        seen.push(job.attempts);
        if (job.attempts <= 2) throw new Error(`boom ${job.attempts}`);
      },
      { backoffMs: 10 * SECOND, maxAttempts: 5 },
    );

    const id = await queue.enqueue('test/flaky', { key: 'a' });
    const t0 = clock.now().getTime();

    // Attempt 1 fails: retried after backoffMs * 2^0.
    expect(await queue.runDue()).toBe(1);
    expect(await row(id)).toMatchObject({
      status: 'pending',
      attempts: 1,
      run_at: sqlTimestamp(new Date(t0 + 10 * SECOND)),
      last_error: 'boom 1',
      locked_by: null,
      locked_at: null,
      finished_at: null,
    });
    expect(logger.entries.filter((e) => e.level === 'warn').map((e) => e.msg)).toEqual(['job failed; will retry']);

    clock.advance(9 * SECOND);
    expect(await queue.runDue()).toBe(0);
    clock.advance(SECOND);

    // Attempt 2 fails: retried after backoffMs * 2^1.
    const t1 = clock.now().getTime();
    expect(await queue.runDue()).toBe(1);
    expect(await row(id)).toMatchObject({ status: 'pending', attempts: 2, run_at: sqlTimestamp(new Date(t1 + 20 * SECOND)), last_error: 'boom 2' });

    clock.advance(19 * SECOND);
    expect(await queue.runDue()).toBe(0);
    clock.advance(SECOND);

    // Attempt 3 succeeds.
    expect(await queue.runDue()).toBe(1);
    expect(await row(id)).toMatchObject({ status: 'done', attempts: 3, last_error: null, finished_at: sqlTimestamp(clock.now()) });
    expect(seen).toEqual([1, 2, 3]);

    clock.advance(60 * MINUTE);
    expect(await queue.runDue()).toBe(0);
    expect(seen).toEqual([1, 2, 3]);
  });

  it('gives up after maxAttempts: status failed, the error kept, logged, never run again', async () => {
    const { clock, logger, queue } = setup();
    let runs = 0;
    queue.define(
      'test/always-fails',
      async () => {
        runs += 1;
        throw new Error(`failure #${runs}`);
      },
      { maxAttempts: 3, backoffMs: SECOND },
    );

    const id = await queue.enqueue('test/always-fails', { key: 'x' });
    expect((await row(id)).max_attempts).toBe(3);
    for (let i = 0; i < 6; i++) {
      await queue.runDue();
      clock.advance(10 * MINUTE);
    }

    expect(runs).toBe(3);
    const failed = await row(id);
    expect(failed).toMatchObject({ status: 'failed', attempts: 3, last_error: 'failure #3', locked_by: null });
    expect(failed.finished_at).not.toBeNull();
    const warnings = logger.entries.filter((e) => e.level === 'warn');
    expect(warnings.map((e) => e.msg)).toEqual(['job failed; will retry', 'job failed; will retry', 'job failed for good']);
    expect(warnings[2].obj).toMatchObject({ job: 'test/always-fails', id, attempt: 3 });

    // An enqueue-time maxAttempts overrides the definition's.
    const once = await queue.enqueue('test/always-fails', { key: 'y' }, { maxAttempts: 1 });
    expect(await queue.runDue()).toBe(1);
    expect(await row(once)).toMatchObject({ status: 'failed', attempts: 1, max_attempts: 1 });
  });

  it('enqueues a job with a unique key once', async () => {
    const { queue } = setup();
    const ran: string[] = [];
    queue.define('test/echo', async ({ value }) => {
      ran.push(value);
    });

    const first = await queue.enqueue('test/echo', { value: 'first', n: 1 }, { uniqueKey: 'order:7:reminder' });
    const second = await queue.enqueue('test/echo', { value: 'second', n: 2 }, { uniqueKey: 'order:7:reminder' });
    expect(first).not.toBeNull();
    expect(second).toBe(first);
    const [third, fourth] = await Promise.all([
      queue.enqueue('test/echo', { value: 'third', n: 3 }, { uniqueKey: 'order:7:reminder' }),
      queue.enqueue('test/echo', { value: 'fourth', n: 4 }, { uniqueKey: 'order:7:reminder' }),
    ]);
    expect([third, fourth]).toEqual([first, first]);
    expect(await countJobs()).toBe(1);

    expect(await queue.runDue()).toBe(1);
    expect(ran).toEqual(['first']);

    // Still once after it ran; another key is another job.
    expect(await queue.enqueue('test/echo', { value: 'again', n: 5 }, { uniqueKey: 'order:7:reminder' })).toBe(first);
    const other = await queue.enqueue('test/echo', { value: 'other', n: 6 }, { uniqueKey: 'order:8:reminder' });
    expect(other).not.toBe(first);
    expect(await queue.runDue()).toBe(1);
    expect(ran).toEqual(['first', 'other']);
    expect(await countJobs()).toBe(2);
  });

  it('schedule() enqueues each cron occurrence once as the clock moves; missed ones are caught up by one run', async () => {
    const { clock, queue } = setup('2026-11-21T10:00:30Z');
    const runs: Array<{ every: string; id: number }> = [];
    queue.define('test/tick', async (payload, job) => {
      runs.push({ ...payload, id: job.id });
    });
    queue.schedule('test/tick', '* * * * *', { every: 'minute' });

    expect(await queue.runDue()).toBe(0);
    expect(await db('job_schedules').select('name', 'next_run_at')).toEqual([{ name: 'test/tick', next_run_at: '2026-11-21 10:01:00' }]);
    clock.advance(30 * SECOND); // 10:01:00
    expect(await queue.runDue()).toBe(1);
    expect(await queue.runDue()).toBe(0);

    clock.advance(3 * MINUTE + 30 * SECOND); // 10:04:30: occurrences 10:02, 10:03 and 10:04 were missed
    expect(await queue.runDue()).toBe(1);
    expect(runs.map((r) => r.every)).toEqual(['minute', 'minute']);
    const rows = (await db('jobs').orderBy('run_at').select('run_at', 'unique_key', 'status')) as Array<Pick<JobRowFull, 'run_at' | 'unique_key' | 'status'>>;
    expect(rows).toEqual([
      { run_at: '2026-11-21 10:01:00', unique_key: 'schedule:test/tick:2026-11-21 10:01:00', status: 'done' },
      { run_at: '2026-11-21 10:02:00', unique_key: 'schedule:test/tick:2026-11-21 10:02:00', status: 'done' },
    ]);
    expect(await db('job_schedules').select('name', 'next_run_at')).toEqual([{ name: 'test/tick', next_run_at: '2026-11-21 10:05:00' }]);

    clock.advance(29 * SECOND); // 10:04:59
    expect(await queue.runDue()).toBe(0);
    clock.advance(SECOND); // 10:05:00: the normal cadence again
    expect(await queue.runDue()).toBe(1);
    clock.advance(MINUTE);
    expect(await queue.runDue()).toBe(1);
    expect(runs).toHaveLength(4);
    expect(await countJobs()).toBe(4);
  });

  it('a schedule missed while no process ran runs once when a process starts again, then keeps its cadence', async () => {
    const clock = new MovableClock('2026-11-21T10:00:30Z');
    const runs: string[] = [];
    const startProcess = (name: string) => {
      const queue = new JobQueue(db, clock, new RecordingLogger());
      queue.define('test/tick', async () => {
        runs.push(`${name} at ${sqlTimestamp(clock.now())}`);
      });
      queue.schedule('test/tick', '17 * * * *', { every: 'hour' });
      return queue;
    };

    const first = startProcess('first');
    expect(await first.runDue()).toBe(0);
    clock.set('2026-11-21T10:17:05Z');
    expect(await first.runDue()).toBe(1);

    // The first process stops; none runs through 11:17, 12:17 and 13:17.
    clock.set('2026-11-21T13:40:00Z');
    const second = startProcess('second');
    expect(await second.runDue()).toBe(1);
    expect(await second.runDue()).toBe(0);
    expect(runs).toEqual(['first at 2026-11-21 10:17:05', 'second at 2026-11-21 13:40:00']);
    expect(await db('jobs').orderBy('run_at').pluck('unique_key')).toEqual([
      'schedule:test/tick:2026-11-21 10:17:00',
      'schedule:test/tick:2026-11-21 11:17:00',
    ]);

    clock.set('2026-11-21T14:16:59Z');
    expect(await second.runDue()).toBe(0);
    clock.set('2026-11-21T14:17:00Z');
    expect(await second.runDue()).toBe(1);
    expect(runs).toHaveLength(3);
    expect(await countJobs({ status: 'done' })).toBe(3);
  });

  it('schedule() takes a job name once', () => {
    const { queue } = setup();
    queue.schedule('test/tick', '* * * * *', { every: 'minute' });
    expect(() => queue.schedule('test/tick', '0 * * * *', { every: 'hour' })).toThrow('job "test/tick" is scheduled twice');
  });

  it('two queues scheduling the same job produce exactly one job per occurrence, and one per catch-up', async () => {
    const clock = new MovableClock('2026-11-21T10:00:30Z');
    const runs: string[] = [];
    const queues = ['a', 'b'].map((name) => {
      const queue = new JobQueue(db, clock, new RecordingLogger());
      queue.define('test/tick', async () => {
        runs.push(name);
      });
      queue.schedule('test/tick', '* * * * *', { every: 'minute' });
      return queue;
    });
    const [a, b] = queues;

    // Both record the schedule at once.
    await Promise.all([a.enqueueScheduled(), b.enqueueScheduled()]);
    expect(await countJobs()).toBe(0);
    expect(await db('job_schedules').pluck('next_run_at')).toEqual(['2026-11-21 10:01:00']);

    clock.advance(30 * SECOND); // 10:01:00
    await Promise.all([a.enqueueScheduled(), b.enqueueScheduled()]);
    expect(await countJobs()).toBe(1);

    clock.advance(3 * MINUTE); // 10:04:00: 10:02, 10:03 and 10:04 are due
    await Promise.all([a.enqueueScheduled(), b.enqueueScheduled()]);
    expect(await countJobs()).toBe(2);
    const ran = (await Promise.all([a.runDue(), b.runDue()])).reduce((x, y) => x + y, 0);
    expect(ran).toBe(2);
    expect(runs).toHaveLength(2);

    clock.advance(MINUTE); // 10:05:00
    expect(await b.runDue()).toBe(1);
    expect(await a.runDue()).toBe(0);
    expect(runs).toHaveLength(3);
    expect(await countJobs()).toBe(3);
    expect(await countJobs({ status: 'done' })).toBe(3);
  });

  it('reclaims a job left running by a dead worker once its lease expires, counting the lost attempt', async () => {
    const { clock, logger, queue } = setup(START, { leaseMs: 5 * MINUTE });
    const seen: number[] = [];
    queue.define('test/echo', async (_payload, job) => {
      seen.push(job.attempts);
    });
    const id = await queue.enqueue('test/echo', { value: 'orphan', n: 1 }, { maxAttempts: 3 });
    // A worker claimed it and died: its lease is never extended.
    await db('jobs')
      .where({ id })
      .update({ status: 'running', locked_by: 'dead:1', locked_at: sqlTimestamp(clock.now()), locked_until: later(clock, 5 * MINUTE), attempts: 1 });

    clock.advance(5 * MINUTE);
    expect(await queue.runDue()).toBe(0);
    expect(await row(id)).toMatchObject({ status: 'running', locked_by: 'dead:1', attempts: 1 });
    clock.advance(SECOND);
    expect(await queue.runDue()).toBe(1);
    expect(seen).toEqual([2]);
    expect(await row(id)).toMatchObject({ status: 'done', attempts: 2, locked_by: null, last_error: null });
    const warnings = logger.entries.filter((e) => e.level === 'warn');
    expect(warnings).toEqual([{ level: 'warn', obj: { job: 'test/echo', id, attempt: 1 }, msg: 'job lease expired; will retry' }]);
  });

  it('fails a job whose lease expired on its last attempt, keeping why', async () => {
    const { clock, logger, queue } = setup(START, { leaseMs: 5 * MINUTE });
    let runs = 0;
    queue.define('test/echo', async () => {
      runs += 1;
    });
    const id = await queue.enqueue('test/echo', { value: 'crashes its worker', n: 1 }, { maxAttempts: 2 });
    await db('jobs')
      .where({ id })
      .update({ status: 'running', locked_by: 'dead:2', locked_at: sqlTimestamp(clock.now()), locked_until: later(clock, 5 * MINUTE), attempts: 2 });

    clock.advance(5 * MINUTE + SECOND);
    expect(await queue.runDue()).toBe(0);
    expect(runs).toBe(0);
    expect(await row(id)).toMatchObject({
      status: 'failed',
      attempts: 2,
      locked_by: null,
      last_error: 'lease expired: the worker stopped without finishing',
      finished_at: sqlTimestamp(clock.now()),
    });
    expect(logger.entries).toEqual([{ level: 'warn', obj: { job: 'test/echo', id, attempt: 2 }, msg: 'job lease expired; failed for good' }]);

    clock.advance(HOUR_MS);
    expect(await queue.runDue()).toBe(0);
    expect(runs).toBe(0);
  });

  it('a long job extends its lease while it runs, so no other worker reclaims it', async () => {
    const timing = { leaseMs: 5 * MINUTE, heartbeatMs: 5 };
    const { clock, logger, queue } = setup(START, timing);
    const other = new JobQueue(db, clock, new RecordingLogger(), timing);
    const gate = deferred();
    const started = deferred();
    const runs: string[] = [];
    for (const [name, worker] of [
      ['worker', queue],
      ['other', other],
    ] as const) {
      worker.define('test/echo', async () => {
        runs.push(name);
        started.resolve();
        if (runs.length === 1) await gate.promise;
      });
    }
    const id = await queue.enqueue('test/echo', { value: 'long', n: 1 });

    const running = queue.runDue();
    await started.promise;
    expect(await row(id)).toMatchObject({ status: 'running', locked_until: later(clock, 5 * MINUTE) });
    // Twelve minutes in steps of four: each step is within the lease the last heartbeat set, well past the first.
    for (let step = 0; step < 3; step++) {
      clock.advance(4 * MINUTE);
      await waitFor('the heartbeat', async () => (await row(id)).locked_until === later(clock, 5 * MINUTE));
      expect(await other.runDue()).toBe(0);
    }
    gate.resolve();
    expect(await running).toBe(1);

    expect(runs).toEqual(['worker']);
    expect(await row(id)).toMatchObject({ status: 'done', attempts: 1, last_error: null });
    expect(logger.entries).toEqual([]);
    // The heartbeat stopped with the job.
    const finished = await row(id);
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(await row(id)).toEqual(finished);
  });

  it('a worker that lost its claim is signalled and its outcome is not recorded', async () => {
    const { clock, logger, queue } = setup(START, { leaseMs: 5 * MINUTE, heartbeatMs: 5 });
    const started = deferred();
    let aborted: unknown = null;
    queue.define('test/echo', async (_payload, job) => {
      started.resolve();
      await new Promise<void>((resolve) => job.signal.addEventListener('abort', () => resolve()));
      aborted = job.signal.reason;
    });
    const id = await queue.enqueue('test/echo', { value: 'stolen', n: 1 });

    const running = queue.runDue();
    await started.promise;
    // Its worker froze past the lease; another worker reclaimed the job and runs it as attempt 2.
    const taken = { status: 'running', locked_by: 'other:1', locked_at: sqlTimestamp(clock.now()), locked_until: later(clock, 5 * MINUTE), attempts: 2 };
    await db('jobs').where({ id }).update(taken);

    expect(await running).toBe(1);
    expect(aborted).toEqual(new Error('the job lease was lost to another worker'));
    expect(await row(id)).toMatchObject({ ...taken, last_error: null, finished_at: null });
    expect(logger.entries.map((e) => [e.msg, e.obj])).toEqual([
      ['job lease lost to another worker; its handler is signalled to stop', { job: 'test/echo', id }],
      ['job finished after another worker reclaimed it; its outcome is not recorded', { job: 'test/echo', id }],
    ]);
  });

  it('fails and logs a job that has no handler', async () => {
    const { clock, logger, queue } = setup();
    const id = await queue.enqueue('test/unhandled', { x: 1 }, { maxAttempts: 2 });

    expect(await queue.runDue()).toBe(1);
    expect(await row(id)).toMatchObject({ status: 'pending', attempts: 1, last_error: 'no handler is defined for job "test/unhandled"' });
    clock.advance(HOUR_MS);
    expect(await queue.runDue()).toBe(1);
    expect(await row(id)).toMatchObject({ status: 'failed', attempts: 2, last_error: 'no handler is defined for job "test/unhandled"' });

    const warnings = logger.entries.filter((e) => e.level === 'warn');
    expect(warnings.map((e) => e.msg)).toEqual(['job failed; will retry', 'job failed for good']);
    expect(warnings[1].obj).toMatchObject({ job: 'test/unhandled', id, attempt: 2 });
    expect((warnings[1].obj as { err: Error }).err.message).toMatch(/no handler/);
  });

  it('two workers never run the same job', async () => {
    const JOBS = 300;
    const clock = new MovableClock(START);
    // MariaDB: two workers on two connection pools, as two app processes would be.
    // SQLite (one writer, one connection): two workers sharing the one knex.
    const connections: Knex[] = dialectOf(db) === 'mysql' ? [await openDatabase(database.url), await openDatabase(database.url)] : [db, db];

    try {
      // Every tenth job fails its first attempt and is retried at once (backoffMs 0), so claims, retries
      // and completions of both workers interleave.
      const runs = new Map<number, Array<{ worker: string; attempt: number }>>();
      const workers = connections.map((connection, i) => {
        const name = `w${i}`;
        const logger = new RecordingLogger();
        // Heartbeats every millisecond run alongside the other worker's claims and completions.
        const queue = new JobQueue(connection, clock, logger, { heartbeatMs: 1 });
        queue.define(
          'test/record',
          async ({ n }, job) => {
            runs.set(job.id, [...(runs.get(job.id) ?? []), { worker: name, attempt: job.attempts }]);
            await new Promise((resolve) => setTimeout(resolve, Math.random() < 0.5 ? 0 : 1));
            if (n % 10 === 0 && job.attempts === 1) throw new Error(`first attempt of ${n} fails`);
          },
          { backoffMs: 0 },
        );
        return { name, queue, logger, ran: 0 };
      });

      const producer = new JobQueue(db, clock, new RecordingLogger());
      const ids: number[] = [];
      for (let start = 0; start < JOBS; start += 50) {
        const batch = await Promise.all(Array.from({ length: Math.min(50, JOBS - start) }, (_, k) => producer.enqueue('test/record', { n: start + k })));
        ids.push(...batch.map((id) => Number(id)));
      }
      expect(new Set(ids).size).toBe(JOBS);

      const drain = async (worker: (typeof workers)[number]) => {
        for (;;) {
          const n = await worker.queue.runDue(3);
          if (n === 0) return;
          worker.ran += n;
        }
      };
      await Promise.all(workers.map(drain));
      // A worker may stop while the other holds the last rows; finish anything left over.
      while ((await countJobs({ status: 'pending' })) > 0) await Promise.all(workers.map(drain));

      const expected = new Map(ids.map((id, n) => [id, n % 10 === 0 ? [1, 2] : [1]]));
      const wrong = [...expected].filter(([id, attempts]) => JSON.stringify((runs.get(id) ?? []).map((r) => r.attempt)) !== JSON.stringify(attempts));
      expect({ wrong: wrong.length, examples: wrong.slice(0, 5).map(([id]) => ({ id, runs: runs.get(id) })) }).toEqual({ wrong: 0, examples: [] });
      expect(runs.size).toBe(JOBS);
      expect(workers[0].ran + workers[1].ran).toBe(JOBS + JOBS / 10);
      expect(workers[0].ran).toBeGreaterThan(0);
      expect(workers[1].ran).toBeGreaterThan(0);
      expect(await countJobs()).toBe(JOBS);
      expect(await countJobs({ status: 'done' })).toBe(JOBS);
      expect(await countJobs({ status: 'done', attempts: 1 })).toBe(JOBS - JOBS / 10);
      const warnings = new Set(workers.flatMap((w) => w.logger.entries.map((e) => e.msg)));
      expect(warnings).toEqual(new Set(['job failed; will retry']));
    } finally {
      for (const connection of new Set(connections)) if (connection !== db) await connection.destroy();
    }
  });

  it('four workers under retries and a moving clock hit no lock errors and run every attempt once', async () => {
    // Regression: on MariaDB the stale-job reset (a range UPDATE on every poll) deadlocked with other
    // workers' claims and completions; a deadlock while marking a job done counted as a handler failure.
    const JOBS = 600;
    const clock = new MovableClock(START);
    const connections: Knex[] = await Promise.all(Array.from({ length: 4 }, () => (dialectOf(db) === 'mysql' ? openDatabase(database.url) : db)));
    try {
      const attempts = new Map<number, number[]>();
      const errors: string[] = [];
      const queues = connections.map((connection) => {
        const queue = new JobQueue(connection, clock, new RecordingLogger());
        queue.define(
          'test/record',
          async ({ n }, job) => {
            attempts.set(job.id, [...(attempts.get(job.id) ?? []), job.attempts]);
            if (n % 7 === 0 && job.attempts === 1) throw new Error('first attempt fails');
          },
          { backoffMs: SECOND },
        );
        return queue;
      });
      const producer = new JobQueue(db, clock, new RecordingLogger());
      for (let start = 0; start < JOBS; start += 100) {
        await Promise.all(Array.from({ length: 100 }, (_, k) => producer.enqueue('test/record', { n: start + k })));
      }

      await Promise.all(
        queues.map(async (queue) => {
          for (let round = 0; round < 5000; round++) {
            try {
              if ((await queue.runDue(2)) > 0) continue;
            } catch (error) {
              errors.push(String((error as { code?: string }).code ?? error));
              continue;
            }
            if ((await countJobs({ status: 'pending' })) + (await countJobs({ status: 'running' })) === 0) return;
            clock.advance(SECOND);
          }
          errors.push('worker gave up');
        }),
      );

      expect(errors).toEqual([]);
      expect(attempts.size).toBe(JOBS);
      const expected = (n: number) => (n % 7 === 0 ? [1, 2] : [1]);
      const rows = (await db('jobs').orderBy('id').select('id', 'payload', 'status', 'attempts')) as Array<{
        id: number;
        payload: string;
        status: string;
        attempts: number;
      }>;
      const wrong = rows.filter((r) => {
        const { n } = JSON.parse(r.payload) as { n: number };
        return r.status !== 'done' || JSON.stringify(attempts.get(Number(r.id))) !== JSON.stringify(expected(n));
      });
      expect(wrong.slice(0, 5)).toEqual([]);
    } finally {
      for (const connection of new Set(connections)) if (connection !== db) await connection.destroy();
    }
  });
});

describe('JobQueue.define(name, handler, { concurrency })', () => {
  it('runs up to `concurrency` jobs of that name at once from a claimed batch; other names still run one at a time', async () => {
    const { queue } = setup();
    const running = { 'test/echo': 0, 'test/record': 0 };
    const most = { 'test/echo': 0, 'test/record': 0 };
    const gate = deferred();
    const track = async (name: keyof typeof running, blockOn: Promise<void>) => {
      running[name]++;
      most[name] = Math.max(most[name], running[name]);
      await blockOn;
      running[name]--;
    };
    let started = 0;
    queue.define(
      'test/echo',
      async ({ n }) => {
        started++;
        if (n === 4) throw new Error('the fourth fails');
        await track('test/echo', gate.promise);
      },
      { concurrency: 3, backoffMs: 0 },
    );
    queue.define('test/record', () => track('test/record', new Promise((resolve) => setTimeout(resolve, 2))));

    for (let n = 1; n <= 7; n++) await queue.enqueue('test/echo', { value: `mail ${n}`, n });
    for (let n = 1; n <= 3; n++) await queue.enqueue('test/record', { n });

    const run = queue.runDue(10);
    await waitFor('three echo jobs running', async () => running['test/echo'] === 3);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(running['test/echo']).toBe(3);
    expect(started).toBe(3);
    gate.resolve();
    expect(await run).toBe(10);

    expect(most).toEqual({ 'test/echo': 3, 'test/record': 1 });
    expect(started).toBe(7);
    expect(await countJobs({ name: 'test/echo', status: 'done' })).toBe(6);
    expect(await countJobs({ name: 'test/echo', status: 'pending', attempts: 1 })).toBe(1);
    expect(await countJobs({ name: 'test/record', status: 'done' })).toBe(3);
  });

  it('the worker loop (start) claims four rounds of the largest concurrency at a time', async () => {
    const { queue } = setup();
    const gate = deferred();
    let running = 0;
    queue.define(
      'test/record',
      async () => {
        running++;
        await gate.promise;
      },
      { concurrency: 3 },
    );
    for (let n = 1; n <= 15; n++) await queue.enqueue('test/record', { n });

    queue.start(5);
    try {
      await waitFor('three jobs running', async () => running === 3);
      const claims = (await db('jobs').where({ status: 'running' }).groupBy('locked_by').select('locked_by').count({ n: '*' })) as Array<{
        n: number | string;
      }>;
      expect(claims.map((claim) => Number(claim.n))).toEqual([12]);
    } finally {
      gate.resolve();
      await waitFor('every job done', async () => (await countJobs({ status: 'done' })) === 15);
      await queue.stop();
    }
  });
});

describe('JobQueue.enqueue(name, payload, { trx })', () => {
  it('writes the job in the caller transaction: it exists if and only if the transaction commits', async () => {
    const { queue } = setup();
    const ran: string[] = [];
    queue.define('test/echo', async ({ value }) => {
      ran.push(value);
    });

    // On SQLite the transaction holds the one connection: an enqueue through the pool would wait for it forever.
    const ids = await db.transaction(async (trx) => {
      const plain = await queue.enqueue('test/echo', { value: 'committed', n: 1 }, { trx });
      const keyed = await queue.enqueue('test/echo', { value: 'committed with a key', n: 2 }, { trx, uniqueKey: 'order:1:mail' });
      expect(await queue.enqueue('test/echo', { value: 'same key', n: 3 }, { trx, uniqueKey: 'order:1:mail' })).toBe(keyed);
      expect(await trx('jobs').orderBy('id').pluck('payload')).toEqual([
        JSON.stringify({ value: 'committed', n: 1 }),
        JSON.stringify({ value: 'committed with a key', n: 2 }),
      ]);
      return [plain, keyed];
    });
    expect(await countJobs({ status: 'pending' })).toBe(2);
    expect(await row(ids[1])).toMatchObject({ unique_key: 'order:1:mail', status: 'pending' });

    await expect(
      db.transaction(async (trx) => {
        await queue.enqueue('test/echo', { value: 'rolled back', n: 4 }, { trx });
        await queue.enqueue('test/echo', { value: 'rolled back with a key', n: 5 }, { trx, uniqueKey: 'order:2:mail' });
        throw new Error('the order could not be saved');
      }),
    ).rejects.toThrow('the order could not be saved');
    expect(await countJobs()).toBe(2);
    expect(await countJobs({ unique_key: 'order:2:mail' })).toBe(0);

    expect(await queue.runDue()).toBe(2);
    expect(ran).toEqual(['committed', 'committed with a key']);
  });
});

describe('migration 20261122000000_job_leases', () => {
  it('gives the jobs running at upgrade a 15-minute lease and adds job_schedules', async () => {
    const upgraded = await createTestDatabase();
    try {
      await hostTables.up(upgraded.db);
      const job = { name: 'test/echo', payload: '{}', run_at: '2026-11-21 10:00:00', created_at: '2026-11-21 10:00:00' };
      await upgraded.db('jobs').insert([
        { ...job, status: 'running', locked_by: 'old:1', locked_at: '2026-11-21 10:00:00', attempts: 1 },
        { ...job, status: 'pending', locked_by: null, locked_at: null, attempts: 0 },
      ]);

      const before = Date.now();
      await jobLeases.up(upgraded.db);
      const after = Date.now();

      const rows = (await upgraded.db('jobs').orderBy('id').select('status', 'locked_until')) as Array<{ status: string; locked_until: string | null }>;
      expect(rows[1]).toEqual({ status: 'pending', locked_until: null });
      expect(rows[0].status).toBe('running');
      const until = rows[0].locked_until ?? '';
      expect(until >= sqlTimestamp(new Date(before + 15 * MINUTE)) && until <= sqlTimestamp(new Date(after + 15 * MINUTE))).toBe(true);
      await upgraded.db('job_schedules').insert({ name: 'test/tick', next_run_at: '2026-11-21 10:01:00' });
      expect(await upgraded.db('job_schedules').select('name', 'next_run_at')).toEqual([{ name: 'test/tick', next_run_at: '2026-11-21 10:01:00' }]);
    } finally {
      await upgraded.drop();
    }
  });
});
