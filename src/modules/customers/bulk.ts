import type { Static } from '@sinclair/typebox';
import { transaction, type Ctx } from '../../core/context';
import { fail, invalid } from '../../core/errors';
import { hourlyClass } from '../../core/ratelimit';
import { toTimestamp } from '../../core/time';
import { recordActivity } from '../activities/service';
import { presentCustomer, type CustomerRow } from './presenter';
import type { BulkActionBody } from './schemas';
import { CUSTOMER_STATUSES, type CustomerStatus } from './types';

export const NO_SELECTION_MESSAGE = 'Please select at least one customer.';

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

export interface BulkResult {
  message: string;
  data: Record<string, number[]>;
}

/**
 * `delete_customers`: a customer without orders is deleted (its addresses and label links with it; the activity log
 * keeps its history). A customer with orders is never deleted, which would orphan or destroy order history: it is
 * archived instead, and the message says so. The delete is conditional (`NOT EXISTS` an order) so an order placed
 * meanwhile turns the delete into an archive rather than a failure.
 */
async function deleteCustomers(ctx: Ctx, ids: number[]): Promise<BulkResult> {
  const deleted: number[] = [];
  const archived: number[] = [];
  const missing: number[] = [];
  await transaction(ctx, async (trx, afterCommit) => {
    const now = toTimestamp(ctx.clock.now());
    for (const id of ids) {
      const row = (await trx('store_customers').where({ id }).first()) as CustomerRow | undefined;
      if (!row) {
        missing.push(id);
        continue;
      }
      const customer = presentCustomer(row);
      const removed = await trx('store_customers')
        .where({ id })
        .whereNotExists((sub) => sub.select('o.id').from('store_orders as o').where('o.customer_id', id))
        .delete();
      if (removed) {
        await trx('store_customer_addresses').where({ customer_id: id }).delete();
        await trx('store_label_relations').where({ object_type: 'customer', object_id: id }).delete();
        await recordActivity(
          trx,
          ctx,
          { object_type: 'customer', object_id: id, title: 'Customer deleted', content: customer.email, status: 'warning' },
          afterCommit,
        );
        deleted.push(id);
        afterCommit(() => ctx.hooks.doAction('store/customer/deleted', customer));
        continue;
      }
      archived.push(id);
      if (customer.status === 'archived') continue;
      await trx('store_customers').where({ id }).update({ status: 'archived', updated_at: now });
      const after = presentCustomer((await trx('store_customers').where({ id }).first()) as CustomerRow);
      await recordActivity(
        trx,
        ctx,
        { object_type: 'customer', object_id: id, title: 'Customer archived', content: 'The customer has orders, so it was archived instead of deleted.' },
        afterCommit,
      );
      afterCommit(() => ctx.hooks.doAction('store/customer/status_changed', after, customer.status));
    }
  });
  const parts: string[] = [];
  if (deleted.length) parts.push(`${plural(deleted.length, 'customer', 'customers')} deleted.`);
  if (archived.length) {
    parts.push(
      `${plural(archived.length, 'customer has', 'customers have')} orders and ${archived.length === 1 ? 'was' : 'were'} archived instead of deleted.`,
    );
  }
  if (missing.length) parts.push(`${plural(missing.length, 'customer was', 'customers were')} not found.`);
  return { message: parts.join(' ') || 'Nothing to delete.', data: { deleted, archived, not_found: missing } };
}

async function changeStatus(ctx: Ctx, ids: number[], status: CustomerStatus): Promise<BulkResult> {
  const updated: number[] = [];
  const missing: number[] = [];
  await transaction(ctx, async (trx, afterCommit) => {
    const now = toTimestamp(ctx.clock.now());
    for (const id of ids) {
      const row = (await trx('store_customers').where({ id }).first()) as CustomerRow | undefined;
      if (!row) {
        missing.push(id);
        continue;
      }
      const before = presentCustomer(row);
      if (before.status === status) continue;
      await trx('store_customers').where({ id }).update({ status, updated_at: now });
      const after = presentCustomer((await trx('store_customers').where({ id }).first()) as CustomerRow);
      await recordActivity(
        trx,
        ctx,
        { object_type: 'customer', object_id: id, title: 'Customer status changed', content: `From ${before.status} to ${status}.` },
        afterCommit,
      );
      updated.push(id);
      afterCommit(() => ctx.hooks.doAction('store/customer/status_changed', after, before.status));
    }
  });
  return {
    message: `Status changed to ${status} for ${plural(updated.length, 'customer', 'customers')}.`,
    data: { updated, not_found: missing },
  };
}

/** `POST /customers/do-bulk-action`: the route needs `customers/manage`; deleting needs `customers/delete` too. */
export async function bulkAction(ctx: Ctx, body: Static<typeof BulkActionBody>): Promise<BulkResult> {
  if (body.action === 'delete_customers' && !ctx.can('customers/delete')) throw fail('rest_forbidden');
  const ids = [...new Set(body.customer_ids ?? [])];
  if (!ids.length) throw fail('rest_forbidden', NO_SELECTION_MESSAGE, { status: 403 });
  if (body.action === 'delete_customers') {
    // Deleting also spends the hourly delete budget (the route itself counts as an update).
    await ctx.limits.consume(ctx, hourlyClass('customers', 'delete', 'customers/manage'));
    return deleteCustomers(ctx, ids);
  }
  if (body.new_status === undefined || body.new_status === '') throw invalid('new_status', 'required', 'The new status field is required.');
  if (!(CUSTOMER_STATUSES as string[]).includes(body.new_status)) throw invalid('new_status', 'in', 'The selected new status is invalid.');
  return changeStatus(ctx, ids, body.new_status as CustomerStatus);
}
