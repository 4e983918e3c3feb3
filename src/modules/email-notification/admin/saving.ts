import type { Knex } from 'knex';
import { transaction, type Ctx } from '../../../core/context';
import { lockForUpdate, parseJson, retryOnLockConflict, type AfterCommit } from '../../../core/db';
import { AppError, fail } from '../../../core/errors';
import type { OptionMap } from '../../../host/contract';

/**
 * An option's stored value with its row locked, read from the table rather than the options cache (which may be up to
 * 5 s old): a read-modify-write that starts here keeps what a concurrent save of another part of the option wrote.
 */
export async function readOptionLocked<K extends keyof OptionMap>(trx: Knex.Transaction, name: K, fallback: OptionMap[K]): Promise<OptionMap[K]> {
  const [row] = (await lockForUpdate(trx('options').where({ name }).select('value'), trx)) as Array<{ value: string | null }>;
  return parseJson<OptionMap[K]>(row?.value, fallback);
}

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
