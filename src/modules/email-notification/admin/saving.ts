import type { Knex } from 'knex';
import { transaction, type Ctx } from '../../../core/context';
import { retryOnLockConflict, type AfterCommit } from '../../../core/db';
import { AppError, fail } from '../../../core/errors';

/**
 * Runs one save in a transaction, again when it lost a lock conflict (two first saves of an option that has no row yet
 * both insert it). A failure that is not an answer of its own (validation, not found) is logged and becomes 500
 * `{message: failure}`, the spec's failure message.
 */
export async function saveInTransaction<T>(ctx: Ctx, failure: string, work: (trx: Knex.Transaction, afterCommit: AfterCommit) => Promise<T>): Promise<T> {
  try {
    return await retryOnLockConflict(() => transaction(ctx, work));
  } catch (error) {
    if (error instanceof AppError) throw error;
    ctx.host.logger.error({ err: error }, failure);
    throw fail('internal_error', failure);
  }
}
