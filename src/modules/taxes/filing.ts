import { transaction, type Ctx } from '../../core/context';
import { lockForUpdate } from '../../core/db';
import { fail } from '../../core/errors';
import { toTimestamp } from '../../core/time';
import { recordActivity } from '../activities/service';
import type { MarkFiledInput } from './schemas';

/**
 * `POST /taxes`: the unfiled records among `ids` get `filed_at` now; filed and unknown ids are left alone. The rows are
 * locked first, so of parallel calls naming the same record exactly one files it. Each order whose records changed
 * gets an activity entry; `store/taxes/filed` fires after commit with the ids that changed.
 */
export async function markTaxesFiled(ctx: Ctx, input: MarkFiledInput): Promise<{ message: string }> {
  if (!Array.isArray(input.ids) || !input.ids.length) throw fail('invalid_state', 'No IDs provided to mark!', { status: 400 });
  const ids = [...new Set(input.ids)];
  await transaction(ctx, async (trx, afterCommit) => {
    const unfiled = (await lockForUpdate(trx('store_order_tax_rates').whereIn('id', ids).whereNull('filed_at').select('id', 'order_id'), trx)) as Array<{
      id: number | string;
      order_id: number | string;
    }>;
    if (!unfiled.length) return;
    const changed = unfiled.map((row) => Number(row.id)).sort((a, b) => a - b);
    const now = toTimestamp(ctx.clock.now());
    await trx('store_order_tax_rates').whereIn('id', changed).update({ filed_at: now, updated_at: now });
    const byOrder = new Map<number, number[]>();
    for (const row of unfiled) byOrder.set(Number(row.order_id), [...(byOrder.get(Number(row.order_id)) ?? []), Number(row.id)]);
    for (const [orderId, records] of [...byOrder].sort(([a], [b]) => a - b)) {
      const list = records.sort((a, b) => a - b).map((id) => `#${id}`);
      await recordActivity(
        trx,
        ctx,
        { object_type: 'order', object_id: orderId, title: 'Tax filed', content: `Tax records ${list.join(', ')} marked as filed.` },
        afterCommit,
      );
    }
    afterCommit(() => ctx.hooks.doAction('store/taxes/filed', changed));
  });
  return { message: 'Taxes marked as filed successfully' };
}
