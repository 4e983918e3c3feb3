import crypto from 'node:crypto';
import { Cron } from 'croner';
import type { Knex } from 'knex';
import type { Clock, EnqueueOptions, JobDefinitionOptions, JobInfo, JobMap, Jobs, Logger } from './contract';
import { sqlTimestamp } from './clock';
import { dialectOf } from './database';

type Handler = (payload: never, job: JobInfo) => Promise<void>;

interface Definition {
  handler: Handler;
  maxAttempts: number;
  backoffMs: number;
}

interface Schedule {
  name: keyof JobMap;
  cron: Cron;
  payload: unknown;
  next: Date | null;
}

interface JobRow {
  id: number | string;
  name: string;
  payload: string;
  attempts: number;
  max_attempts: number;
}

const DEFAULT_MAX_ATTEMPTS = 5;
const DEFAULT_BACKOFF_MS = 30_000;
/** A job still `running` this long after it was claimed belongs to a worker that died; it is retried. */
const STALE_AFTER_MS = 15 * 60 * 1000;
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

/**
 * The job queue: a `jobs` table polled by a worker loop. Claiming marks rows with a per-claim token in
 * one conditional UPDATE, so two workers never run the same job; on MySQL the candidate rows are read
 * with `FOR UPDATE SKIP LOCKED` so workers do not queue behind each other's locks.
 */
export class JobQueue implements Jobs {
  private readonly definitions = new Map<string, Definition>();
  private readonly schedules: Schedule[] = [];
  private readonly workerId = crypto.randomUUID().slice(0, 8);
  private claims = 0;
  private timer: NodeJS.Timeout | null = null;
  private active: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly db: Knex,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  define<N extends keyof JobMap>(name: N, handler: (payload: JobMap[N], job: JobInfo) => Promise<void>, options: JobDefinitionOptions = {}): void {
    this.definitions.set(name, {
      handler: handler as Handler,
      maxAttempts: options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
      backoffMs: options.backoffMs ?? DEFAULT_BACKOFF_MS,
    });
  }

  async enqueue<N extends keyof JobMap>(name: N, payload: JobMap[N], options: EnqueueOptions = {}): Promise<number | null> {
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
      const [id] = await this.db('jobs').insert(row);
      return Number(id);
    }
    // Two processes inserting the same unique key at once can deadlock on MySQL's gap locks: the loser retries.
    await retryOnLockConflict(() => this.db('jobs').insert(row).onConflict('unique_key').ignore());
    const existing = (await this.db('jobs').where({ unique_key: options.uniqueKey }).first('id')) as { id: number } | undefined;
    return existing ? Number(existing.id) : null;
  }

  schedule<N extends keyof JobMap>(name: N, pattern: string, payload: JobMap[N]): void {
    const cron = new Cron(pattern, { timezone: 'UTC', paused: true });
    this.schedules.push({ name, cron, payload, next: cron.nextRun(this.clock.now()) });
  }

  /** Enqueues every scheduled occurrence that is due; the unique key makes this safe in every process at once. */
  async enqueueScheduled(): Promise<void> {
    const now = this.clock.now();
    for (const schedule of this.schedules) {
      while (schedule.next && schedule.next <= now) {
        const occurrence = schedule.next;
        await this.enqueue(schedule.name, schedule.payload as never, {
          runAt: occurrence,
          uniqueKey: `schedule:${schedule.name}:${sqlTimestamp(occurrence)}`,
        });
        schedule.next = schedule.cron.nextRun(occurrence);
      }
    }
  }

  async runDue(limit = 10): Promise<number> {
    await this.enqueueScheduled();
    const claimed = await this.claim(limit);
    for (const job of claimed) await this.execute(job);
    return claimed.length;
  }

  start(pollMs = 1000): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      this.active = this.active
        .then(async () => {
          while ((await this.runDue()) > 0 && this.timer);
        })
        .catch((error: unknown) => this.logger.error({ err: error }, 'job worker tick failed'));
    }, pollMs);
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.active;
  }

  private async claim(limit: number): Promise<JobRow[]> {
    const now = this.clock.now();
    const nowSql = sqlTimestamp(now);
    const token = `${this.workerId}:${++this.claims}`;
    const mysql = dialectOf(this.db) === 'mysql';
    // Stale rows are found with a plain read and reset by primary key: a range UPDATE over every `running`
    // row on each poll took next-key locks on MySQL and deadlocked with other workers' claims and completions.
    const staleBefore = sqlTimestamp(new Date(now.getTime() - STALE_AFTER_MS));
    const stale = ((await this.db('jobs').where({ status: 'running' }).andWhere('locked_at', '<', staleBefore).select('id')) as Array<{ id: number }>).map(
      (r) => r.id,
    );
    if (stale.length) {
      await retryOnLockConflict(() =>
        this.db('jobs')
          .whereIn('id', stale)
          .andWhere({ status: 'running' })
          .andWhere('locked_at', '<', staleBefore)
          .update({ status: 'pending', locked_by: null, locked_at: null }),
      );
    }

    // READ COMMITTED on MySQL: row locks only, no gap locks, so concurrent claims and status updates
    // (which move rows within the (status, run_at) index) do not deadlock.
    await retryOnLockConflict(() =>
      this.db.transaction(
        async (trx) => {
          const candidates = trx('jobs').where({ status: 'pending' }).andWhere('run_at', '<=', nowSql).orderBy(['run_at', 'id']).limit(limit).select('id');
          if (mysql) candidates.forUpdate().skipLocked();
          const ids = ((await candidates) as Array<{ id: number }>).map((r) => r.id);
          if (!ids.length) return;
          await trx('jobs')
            .whereIn('id', ids)
            .andWhere({ status: 'pending' })
            .update({ status: 'running', locked_by: token, locked_at: nowSql, attempts: trx.raw('attempts + 1') });
        },
        mysql ? { isolationLevel: 'read committed' } : {},
      ),
    );
    return (await this.db('jobs')
      .where({ locked_by: token, status: 'running' })
      .orderBy(['run_at', 'id'])
      .select('id', 'name', 'payload', 'attempts', 'max_attempts')) as JobRow[];
  }

  private async execute(job: JobRow): Promise<void> {
    const id = Number(job.id);
    const definition = this.definitions.get(job.name);
    let failed = false;
    let error: unknown;
    try {
      if (!definition) throw new Error(`no handler is defined for job "${job.name}"`);
      await definition.handler(JSON.parse(job.payload) as never, { id, name: job.name, attempts: job.attempts, maxAttempts: job.max_attempts });
    } catch (caught) {
      failed = true;
      error = caught;
    }
    // Recording the outcome is outside the handler's try: a database error here must not count as a
    // failure of a handler that succeeded (that re-ran the job).
    if (!failed) {
      await retryOnLockConflict(() =>
        this.db('jobs')
          .where({ id })
          .update({ status: 'done', finished_at: sqlTimestamp(this.clock.now()), locked_by: null, last_error: null }),
      );
      return;
    }
    const message = error instanceof Error ? error.message : String(error);
    const retry = job.attempts < job.max_attempts;
    const backoff = (definition?.backoffMs ?? DEFAULT_BACKOFF_MS) * 2 ** (job.attempts - 1);
    this.logger.warn({ err: error, job: job.name, id, attempt: job.attempts }, retry ? 'job failed; will retry' : 'job failed for good');
    await retryOnLockConflict(() =>
      this.db('jobs')
        .where({ id })
        .update(
          retry
            ? { status: 'pending', run_at: sqlTimestamp(new Date(this.clock.now().getTime() + backoff)), locked_by: null, locked_at: null, last_error: message }
            : { status: 'failed', finished_at: sqlTimestamp(this.clock.now()), locked_by: null, last_error: message },
        ),
    );
  }
}
