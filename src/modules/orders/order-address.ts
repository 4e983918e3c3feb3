import { transaction, type Ctx } from '../../core/context';
import { lockForUpdate } from '../../core/db';
import { fail } from '../../core/errors';
import { toTimestamp } from '../../core/time';
import { recordActivity } from '../activities/service';
import { syncOrderAddress, type AddressRow } from '../customers/addresses';
import type { AddressType } from '../customers/types';
import { orderNotFound } from './customer-change';
import { emitOrderEvent } from '../order-records/order-events';
import { presentOrder, presentOrderAddress, type OrderRow } from '../order-records/presenter';

/**
 * `update-address-id`: copies one of the order's customer's addresses onto the order's billing (default) or shipping
 * address, creating that row when the order has none. An address of another customer is not found (404), like a
 * missing one. Writes an activity entry; `store/order/address_updated` fires after the commit.
 */
export async function copyCustomerAddressToOrder(ctx: Ctx, orderId: number, addressId: number, type: AddressType): Promise<{ message: string }> {
  await transaction(ctx, async (trx, afterCommit) => {
    const order = (await lockForUpdate(trx('store_orders').where({ id: orderId }), trx).first()) as OrderRow | undefined;
    if (!order) throw orderNotFound();
    const address =
      order.customer_id === null
        ? undefined
        : ((await trx('store_customer_addresses').where({ id: addressId, customer_id: order.customer_id }).first()) as AddressRow | undefined);
    if (!address) throw fail('not_found', 'Address not found');
    const now = toTimestamp(ctx.clock.now());
    await syncOrderAddress(trx, orderId, { ...address, type }, now);
    await trx('store_orders').where({ id: orderId }).update({ updated_at: now });
    await emitOrderEvent(ctx, trx, { type: 'changed', order_ids: [orderId] });
    const copy = await presentOrderAddress((await trx('store_order_addresses').where({ order_id: orderId, type }).first()) as Record<string, unknown>);
    await recordActivity(
      trx,
      ctx,
      {
        object_type: 'order',
        object_id: orderId,
        title: `${type === 'billing' ? 'Billing' : 'Shipping'} address updated`,
        content: `Copied from customer address #${addressId}: ${copy.formatted_address.full_address}`,
      },
      afterCommit,
    );
    const updated = presentOrder((await trx('store_orders').where({ id: orderId }).first()) as OrderRow);
    afterCommit(() => ctx.hooks.doAction('store/order/address_updated', updated, copy));
  });
  return { message: 'Address updated successfully' };
}
