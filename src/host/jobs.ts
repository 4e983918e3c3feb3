import crypto from 'node:crypto';
import { Cron } from 'croner';
import type { Knex } from 'knex';
import type { Clock, EnqueueOptions, JobDefinitionOptions, JobInfo, JobMap, Jobs, Logger } from './contract';
import { sqlTimestamp } from './clock';
import { dialectOf } from './database';
import { JobLease, type LeaseTiming } from './job-lease';

type Handler = (payload: never, job: JobInfo) => Promise<void>;

interface Definition {
  handler: Handler;
  maxAttempts: number;
  backoffMs: number;
  concurrency: number;
}

interface Schedule {
  name: keyof JobMap;
  cron: Cron;
  payload: unknown;
  /** The first occurrence counts from here when no process has recorded the schedule yet. */
  registeredAt: Date;
  /** Before this time (ms) the stored next occurrence is known not to be due: the database is not asked. */
  checkAt: number;
}

interface JobRow {
  id: number | string;
  name: string;
  payload: string;
  attempts: number;
  max_attempts: number;
}

interface RunningRow {
  id: number | string;
  name: string;
  attempts: number;
  max_attempts: number;
  locked_by: string | null;
}

export type JobQueueOptions = Partial<LeaseTiming>;

const DEFAULT_MAX_ATTEMPTS = 5;
const DEFAULT_BACKOFF_MS = 30_000;
/** Jobs claimed at a time; the worker loop claims more when a definition runs several at once (`batchSize`). */
const DEFAULT_BATCH = 10;
const DEFAULT_LEASE_MS = 5 * 60 * 1000;
const DEFAULT_HEARTBEAT_MS = 60 * 1000;
const LEASE_EXPIRED = 'lease expired: the worker stopped without finishing';
/** Lock conflicts after which a short statement or the claim transaction is simply tried again. */
const LOCK_CONFLICTS = new Set(['ER_LOCK_DEADLOCK', 'ER_LOCK_WAIT_TIMEOUT', 'SQLITE_BUSY']);

/** Runs `work` again (a few times, after a short pause) when MySQL picked it as a deadlock victim. */
async function retryOnLockConflict<T>(work: () => Promise<T>, tries = 5): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      const code = (error as { code?: unknown } | null)?.code;
      if (attempt >= tries || typeof code !== 'string' || !LOCK_CONFLICTS.has(code)) throw error;
      await new Promise((resolve) => setTimeout(resolve, attempt * 5 + Math.random() * 20));
    }
  }
}

/** A claimed batch by job name, names in order of their first job, each name's jobs in claim order. */
function groupByName(jobs: JobRow[]): Map<string, JobRow[]> {
  const groups = new Map<string, JobRow[]>();
  for (const job of jobs) {
    const group = groups.get(job.name);
    if (group) group.push(job);
    else groups.set(job.name, [job]);
  }
  return groups;
}

/** Runs `work` over `items`, at most `limit` at a time; waits for all of them, then throws the first error if any. */
async function eachLimited<T>(items: T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < items.length) await work(items[next++]);
  };
  const lanes = await Promise.allSettled(Array.from({ length: Math.min(limit, items.length) }, lane));
  const failed = lanes.find((result): result is PromiseRejectedResult => result.status === 'rejected');
  if (failed) throw failed.reason;
}

function fromSqlTimestamp(value: string): Date {
  return new Date(`${value.replace(' ', 'T')}Z`);
}

/**
 * The job queue: a `jobs` table polled by a worker loop. Claiming marks rows with a per-claim token in
 * one conditional UPDATE, so two workers never run the same job; on MySQL the candidate rows are read
 * with `FOR UPDATE SKIP LOCKED` so workers do not queue behind each other's locks. A claim is a lease
 * (`locked_until`) that the worker's heartbeat extends while it holds the job; a job whose lease expired
 * belongs to a worker that died and is reclaimed, which counts as an attempt.
 */
export class JobQueue implements Jobs {
  private readonly definitions = new Map<string, Definition>();
  private readonly schedules: Schedule[] = [];
  private readonly workerId = crypto.randomUUID().slice(0, 8);
  private readonly timing: LeaseTiming;
  private readonly mysql: boolean;
  private claims = 0;
  private timer: NodeJS.Timeout | null = null;
  private active: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly db: Knex,
    private readonly clock: Clock,
    private readonly logger: Logger,
    options: JobQueueOptions = {},
  ) {
    this.timing = { leaseMs: options.leaseMs ?? DEFAULT_LEASE_MS, heartbeatMs: options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS };
    this.mysql = dialectOf(db) === 'mysql';
  }

  define<N extends keyof JobMap>(name: N, handler: (payload: JobMap[N], job: JobInfo) => Promise<void>, options: JobDefinitionOptions = {}): void {
    this.definitions.set(name, {
      handler: handler as Handler,
      maxAttempts: options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
      backoffMs: options.backoffMs ?? DEFAULT_BACKOFF_MS,
      concurrency: Math.max(1, Math.floor(options.concurrency ?? 1)),
    });
  }

  async enqueue<N extends keyof JobMap>(name: N, payload: JobMap[N], options: EnqueueOptions = {}): Promise<number | null> {
    const db = options.trx ?? this.db;
    const now = this.clock.now();
    const runAt = options.runAt ?? new Date(now.getTime() + (options.delayMs ?? 0));
    const row = {
      name,
      payload: JSON.stringify(payload ?? {}),
      status: 'pending',
      run_at: sqlTimestamp(runAt),
      attempts: 0,
      max_attempts: options.maxAttempts ?? this.definitions.get(name)?.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
      unique_key: options.uniqueKey ?? null,
      created_at: sqlTimestamp(now),
    };
    if (!options.uniqueKey) {
      const [id] = await db('jobs').insert(row);
      return Number(id);
    }
    const insert = () => db('jobs').insert(row).onConflict('unique_key').ignore();
    // Two processes inserting the same unique key at once can deadlock on MySQL's gap locks: the loser retries.
    // Inside the caller's transaction a deadlock has rolled it all back, so only the caller can retry.
    await (options.trx ? insert() : retryOnLockConflict(insert));
    const existing = (await db('jobs').where({ unique_key: options.uniqueKey }).first('id')) as { id: number } | undefined;
    return existing ? Number(existing.id) : null;
  }

  schedule<N extends keyof JobMap>(name: N, pattern: string, payload: JobMap[N]): void {
    if (this.schedules.some((s) => s.name === name)) throw new Error(`job "${name}" is scheduled twice`);
    const cron = new Cron(pattern, { timezone: 'UTC', paused: true });
    this.schedules.push({ name, cron, payload, registeredAt: this.clock.now(), checkAt: 0 });
  }

  /**
   * Enqueues the schedules that are due. The next occurrence of each lives in `job_schedules`, so it survives
   * restarts, and is read and moved under a row lock, so one process enqueues each occurrence.
   */
  async enqueueScheduled(): Promise<void> {
    const now = this.clock.now();
    for (const schedule of this.schedules) {
      if (schedule.checkAt > now.getTime()) continue;
      const next = await retryOnLockConflict(() =>
        this.db.transaction((trx) => this.catchUp(trx, schedule, now), this.mysql ? { isolationLevel: 'read committed' } : {}),
      );
      schedule.checkAt = next ? next.getTime() : Infinity;
    }
  }

  async runDue(limit = DEFAULT_BATCH): Promise<number> {
    await this.enqueueScheduled();
    const token = `${this.workerId}:${++this.claims}`;
    const claimed = await this.claim(token, limit);
    if (!claimed.length) return 0;
    const lease = new JobLease(
      this.db,
      this.clock,
      this.logger,
      token,
      this.timing,
      claimed.map((job) => ({ id: Number(job.id), name: job.name })),
    );
    try {
      for (const [name, jobs] of groupByName(claimed)) {
        await eachLimited(jobs, this.definitions.get(name)?.concurrency ?? 1, (job) => this.execute(job, token, lease));
      }
    } finally {
      await lease.end();
    }
    return claimed.length;
  }

  start(pollMs = 1000): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      this.active = this.active
        .then(async () => {
          while ((await this.runDue(this.batchSize())) > 0 && this.timer);
        })
        .catch((error: unknown) => this.logger.error({ err: error }, 'job worker tick failed'));
    }, pollMs);
  }

  /**
   * A batch's jobs of one name run `concurrency` at a time and the next batch is claimed when the whole batch is done:
   * four rounds per batch keep the lanes busy through most of it.
   */
  private batchSize(): number {
    return Math.max(DEFAULT_BATCH, ...[...this.definitions.values()].map((definition) => 4 * definition.concurrency));
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.active;
  }

  /**
   * One job when the schedule has a due occurrence, however many were missed (no process ran, or the worker was
   * busy): it is keyed and timed by the first missed occurrence, and the schedule resumes after `now`.
   * Returns the stored next occurrence.
   */
  private async catchUp(trx: Knex.Transaction, schedule: Schedule, now: Date): Promise<Date | null> {
    const read = async () => {
      const query = trx('job_schedules').where({ name: schedule.name }).first('next_run_at');
      if (this.mysql) query.forUpdate();
      return (await query) as { next_run_at: string | null } | undefined;
    };
    let stored = await read();
    if (!stored) {
      const first = schedule.cron.nextRun(schedule.registeredAt);
      await trx('job_schedules')
        .insert({ name: schedule.name, next_run_at: first && sqlTimestamp(first) })
        .onConflict('name')
        .ignore();
      stored = await read();
    }
    const due = stored?.next_run_at ? fromSqlTimestamp(stored.next_run_at) : null;
    if (!due || due > now) return due;
    await this.enqueue(schedule.name, schedule.payload as never, { runAt: due, uniqueKey: `schedule:${schedule.name}:${sqlTimestamp(due)}`, trx });
    const next = schedule.cron.nextRun(now);
    await trx('job_schedules')
      .where({ name: schedule.name })
      .update({ next_run_at: next && sqlTimestamp(next) });
    return next;
  }

  private async claim(token: string, limit: number): Promise<JobRow[]> {
    const now = this.clock.now();
    const nowSql = sqlTimestamp(now);
    await this.reclaimExpired(nowSql);

    // READ COMMITTED on MySQL: row locks only, no gap locks, so concurrent claims and status updates
    // (which move rows within the (status, run_at) index) do not deadlock.
    await retryOnLockConflict(() =>
      this.db.transaction(
        async (trx) => {
          const candidates = trx('jobs').where({ status: 'pending' }).andWhere('run_at', '<=', nowSql).orderBy(['run_at', 'id']).limit(limit).select('id');
          if (this.mysql) candidates.forUpdate().skipLocked();
          const ids = ((await candidates) as Array<{ id: number }>).map((r) => r.id);
          if (!ids.length) return;
          await trx('jobs')
            .whereIn('id', ids)
            .andWhere({ status: 'pending' })
            .update({
              status: 'running',
              locked_by: token,
              locked_at: nowSql,
              locked_until: sqlTimestamp(new Date(now.getTime() + this.timing.leaseMs)),
              attempts: trx.raw('attempts + 1'),
            });
        },
        this.mysql ? { isolationLevel: 'read committed' } : {},
      ),
    );
    return (await this.db('jobs')
      .where({ locked_by: token, status: 'running' })
      .orderBy(['run_at', 'id'])
      .select('id', 'name', 'payload', 'attempts', 'max_attempts')) as JobRow[];
  }

  /**
   * Jobs whose lease expired belong to a worker that stopped: the claim counted as an attempt, so each is retried
   * or, after its last attempt, failed. Found with a plain read and updated by primary key: a range UPDATE over
   * every `running` row on each poll took next-key locks on MySQL and deadlocked with other workers' claims.
   */
  private async reclaimExpired(nowSql: string): Promise<void> {
    const expired = (await this.db('jobs')
      .where({ status: 'running' })
      .andWhere('locked_until', '<', nowSql)
      .select('id', 'name', 'attempts', 'max_attempts', 'locked_by')) as RunningRow[];
    for (const job of expired) {
      const id = Number(job.id);
      const exhausted = job.attempts >= job.max_attempts;
      const updated = await retryOnLockConflict(() =>
        this.db('jobs')
          .where({ id, status: 'running', locked_by: job.locked_by })
          .andWhere('locked_until', '<', nowSql)
          .update(
            exhausted
              ? { status: 'failed', finished_at: nowSql, locked_by: null, last_error: LEASE_EXPIRED }
              : { status: 'pending', locked_by: null, locked_at: null, locked_until: null, last_error: LEASE_EXPIRED },
          ),
      );
      if (updated) {
        this.logger.warn({ job: job.name, id, attempt: job.attempts }, exhausted ? 'job lease expired; failed for good' : 'job lease expired; will retry');
      }
    }
  }

  private async execute(job: JobRow, token: string, lease: JobLease): Promise<void> {
    const id = Number(job.id);
    const signal = lease.signal(id);
    if (signal.aborted) return;
    const definition = this.definitions.get(job.name);
    let failed = false;
    let error: unknown;
    try {
      if (!definition) throw new Error(`no handler is defined for job "${job.name}"`);
      const info: JobInfo = { id, name: job.name, attempts: job.attempts, maxAttempts: job.max_attempts, signal };
      await definition.handler(JSON.parse(job.payload) as never, info);
    } catch (caught) {
      failed = true;
      error = caught;
    }
    await lease.release(id);
    // Recording the outcome is outside the handler's try: a database error here must not count as a
    // failure of a handler that succeeded (that re-ran the job). It is recorded only while this claim holds.
    const mine = () => this.db('jobs').where({ id, locked_by: token, status: 'running' });
    let recorded: number;
    if (!failed) {
      recorded = await retryOnLockConflict(() =>
        mine().update({ status: 'done', finished_at: sqlTimestamp(this.clock.now()), locked_by: null, last_error: null }),
      );
    } else {
      const message = error instanceof Error ? error.message : String(error);
      const retry = job.attempts < job.max_attempts;
      const backoff = (definition?.backoffMs ?? DEFAULT_BACKOFF_MS) * 2 ** (job.attempts - 1);
      this.logger.warn({ err: error, job: job.name, id, attempt: job.attempts }, retry ? 'job failed; will retry' : 'job failed for good');
      recorded = await retryOnLockConflict(() =>
        mine().update(
          retry
            ? {
                status: 'pending',
                run_at: sqlTimestamp(new Date(this.clock.now().getTime() + backoff)),
                locked_by: null,
                locked_at: null,
                locked_until: null,
                last_error: message,
              }
            : { status: 'failed', finished_at: sqlTimestamp(this.clock.now()), locked_by: null, last_error: message },
        ),
      );
    }
    if (!recorded) this.logger.warn({ job: job.name, id }, 'job finished after another worker reclaimed it; its outcome is not recorded');
  }
}
