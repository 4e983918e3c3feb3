import type { Knex } from 'knex';
import type { Clock, Logger } from './contract';
import { sqlTimestamp } from './clock';

export interface LeaseTiming {
  /** How long a claim holds without a heartbeat; a job whose lease expired is reclaimed by any worker. */
  leaseMs: number;
  /** How often a worker extends the leases of the jobs it holds; well under `leaseMs`. */
  heartbeatMs: number;
}

interface HeldJob {
  id: number;
  name: string;
}

/**
 * The leases of one claimed batch. Until a job is released, a heartbeat moves its `locked_until` to now + lease,
 * on condition that the row still carries this worker's claim token; a job that lost it (its lease expired and
 * another worker reclaimed it) has its signal aborted. Heartbeats never overlap: the next one is timed from the
 * end of the last.
 */
export class JobLease {
  private readonly jobs = new Map<number, { name: string; controller: AbortController }>();
  private readonly held = new Set<number>();
  private timer: NodeJS.Timeout | null = null;
  private beat: Promise<void> = Promise.resolve();

  constructor(
    private readonly db: Knex,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly token: string,
    private readonly timing: LeaseTiming,
    jobs: HeldJob[],
  ) {
    for (const job of jobs) {
      this.jobs.set(job.id, { name: job.name, controller: new AbortController() });
      this.held.add(job.id);
    }
    if (this.held.size) this.timer = setTimeout(this.tick, timing.heartbeatMs);
  }

  /** The job's signal, aborted once the job is found lost. */
  signal(id: number): AbortSignal {
    const job = this.jobs.get(id);
    if (!job) throw new Error(`job ${id} is not part of this claim`);
    return job.controller.signal;
  }

  /** Stops extending the job's lease, before its outcome is written; waits for a heartbeat in flight. */
  async release(id: number): Promise<void> {
    this.held.delete(id);
    await this.settle();
  }

  /** Stops extending every lease still held. */
  async end(): Promise<void> {
    this.held.clear();
    await this.settle();
  }

  private async settle(): Promise<void> {
    if (!this.held.size && this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    await this.beat;
  }

  private readonly tick = (): void => {
    this.timer = null;
    this.beat = this.extend()
      .catch((error: unknown) => this.logger.warn({ err: error }, 'job heartbeat failed; retrying at the next one'))
      .then(() => {
        if (this.held.size && !this.timer) this.timer = setTimeout(this.tick, this.timing.heartbeatMs);
      });
  };

  private async extend(): Promise<void> {
    const ids = [...this.held];
    if (!ids.length) return;
    const holding = () => this.db('jobs').whereIn('id', ids).andWhere({ locked_by: this.token, status: 'running' });
    const until = sqlTimestamp(new Date(this.clock.now().getTime() + this.timing.leaseMs));
    // MySQL counts only changed rows: a heartbeat within the same second changes none, so a short count is checked.
    if ((await holding().update({ locked_until: until })) === ids.length) return;
    const kept = new Set(((await holding().pluck('id')) as Array<number | string>).map(Number));
    for (const id of ids) {
      const job = this.jobs.get(id);
      if (!job || kept.has(id) || !this.held.delete(id)) continue;
      job.controller.abort(new Error('the job lease was lost to another worker'));
      this.logger.warn({ job: job.name, id }, 'job lease lost to another worker; its handler is signalled to stop');
    }
  }
}
