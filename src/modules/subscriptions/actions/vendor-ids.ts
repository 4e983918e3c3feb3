/**
 * The vendor-id endpoints (spec: "Vendor-id rules"). The rules run in this order, each refusal changing nothing:
 * 1. the site's opt-in switch (`vendor_id_editing_enabled`, through `store/subscription/vendor_id_editing_enabled`): 403;
 * 2. the body: each id at most 45 characters of `[a-zA-Z0-9_.-]`, omitted = untouched, '' = cleared, one at least: 422;
 * 3. the subscription of `{order}`: 404;
 * 4. an `active` subscription billed by its gateway (`collection_method: automatic`): 400;
 * then, to edit: a `vendor_subscription_id` another subscription of the same payment method uses is refused (422, the
 * unique key backs it), and a body that changes nothing is 400 'No changes detected.'; to verify: the gateway must
 * declare `verify_vendor_ids` (400), and what it finds is answered, nothing written.
 */
import { transaction, type Ctx } from '../../../core/context';
import { isUniqueViolation, lockForUpdate } from '../../../core/db';
import { fail, invalid, type FieldErrors } from '../../../core/errors';
import { centsToDecimal, minorUnits } from '../../../core/money';
import { toTimestamp } from '../../../core/time';
import type { RemoteSubscription } from '../../../gateways/gateway';
import { recordActivity } from '../../activities/service';
import { vendorIdEditingEnabled } from '../../settings/store-settings';
import { gatewaySubscriptionOf } from '../portal/gateway-calls';
import { presentSubscription, type SubscriptionRow } from '../presenter';
import { readSubscription } from '../service';
import type { Subscription } from '../types';
import { gatewayFailure, gatewayOf, subscriptionOfOrder, titleOf } from './lookup';

export const VENDOR_IDS = {
  disabled: 'Vendor ID editing is disabled for this site.',
  notEditable: 'Vendor IDs can only be edited on an active gateway-billed subscription.',
  duplicate: 'Another subscription on this payment method is already using this Vendor Subscription ID.',
  unchanged: 'No changes detected.',
  updated: 'Vendor IDs have been updated successfully!',
  noLookup: 'This payment method does not support subscription lookup.',
  found: 'Subscription found at the payment gateway.',
  notFound: 'No subscription with this Vendor Subscription ID was found at the payment gateway.',
  oneRequired: 'Send a vendor subscription ID or a vendor customer ID to change.',
} as const;

const FIELDS = ['vendor_subscription_id', 'vendor_customer_id'] as const;
type Field = (typeof FIELDS)[number];
export type VendorIdsInput = Partial<Record<Field, string>>;

const MAX = 45;
const PATTERN = /^[a-zA-Z0-9_.-]+$/;
const LABEL: Record<Field, string> = { vendor_subscription_id: 'vendor subscription ID', vendor_customer_id: 'vendor customer ID' };

function checkIds(input: VendorIdsInput, required: readonly Field[]): FieldErrors {
  const errors: FieldErrors = {};
  for (const field of FIELDS) {
    const value = input[field];
    if (value === undefined || value === '') {
      if (required.includes(field)) errors[field] = { required: `The ${LABEL[field]} field is required.` };
    } else if (value.length > MAX) errors[field] = { max: `The ${LABEL[field]} field must not be greater than ${MAX} characters.` };
    else if (!PATTERN.test(value)) errors[field] = { regex: `The ${LABEL[field]} may only contain letters, digits, dots, dashes and underscores.` };
  }
  return errors;
}

function throwIfAny(errors: FieldErrors): void {
  const first = Object.values(errors)[0];
  if (first) throw fail('validation_error', Object.values(first)[0], { errors });
}

/** Rules 1 to 4: the subscription whose ids may be edited or verified. */
async function editableSubscription(
  ctx: Ctx,
  orderId: number,
  subscriptionId: number,
  input: VendorIdsInput,
  required: readonly Field[],
): Promise<Subscription> {
  if (!(await vendorIdEditingEnabled(ctx))) throw fail('rest_forbidden', VENDOR_IDS.disabled);
  throwIfAny(checkIds(input, required));
  if (!required.length && FIELDS.every((field) => input[field] === undefined)) throw invalid('vendor_subscription_id', 'required', VENDOR_IDS.oneRequired);
  const subscription = await subscriptionOfOrder(ctx.db, orderId, subscriptionId);
  if (!isEditable(subscription)) throw fail('invalid_state', VENDOR_IDS.notEditable);
  return subscription;
}

const isEditable = (s: Pick<Subscription, 'status' | 'collection_method'>) => s.status === 'active' && s.collection_method === 'automatic';

const duplicate = () => invalid('vendor_subscription_id', 'unique', VENDOR_IDS.duplicate);

/**
 * `PUT .../vendor-ids`: writes the two id columns (and `updated_at`) and nothing else: no status event, no renewal or
 * invoice touched, no gateway call. An activity entry records who changed what, and `store/subscription/updated` fires.
 */
export async function updateVendorIds(ctx: Ctx, orderId: number, subscriptionId: number, input: VendorIdsInput) {
  await editableSubscription(ctx, orderId, subscriptionId, input, []);
  const after = await transaction(ctx, async (trx, afterCommit) => {
    const before = presentSubscription((await lockForUpdate(trx('store_subscriptions').where({ id: subscriptionId }), trx).first()) as SubscriptionRow);
    if (!isEditable(before)) throw fail('invalid_state', VENDOR_IDS.notEditable);
    const changes: VendorIdsInput = {};
    for (const field of FIELDS) if (input[field] !== undefined && input[field] !== before[field]) changes[field] = input[field];
    if (!Object.keys(changes).length) throw fail('invalid_state', VENDOR_IDS.unchanged);
    if (changes.vendor_subscription_id) {
      const taken = await trx('store_subscriptions')
        .where({ current_payment_method: before.current_payment_method, vendor_subscription_id: changes.vendor_subscription_id })
        .whereNot({ id: subscriptionId })
        .first('id');
      if (taken) throw duplicate();
    }
    // The unique key decides between two requests claiming the same id at once.
    try {
      await trx('store_subscriptions')
        .where({ id: subscriptionId })
        .update({ ...changes, updated_at: toTimestamp(ctx.clock.now()) });
    } catch (error) {
      throw isUniqueViolation(error) ? duplicate() : error;
    }
    const updated = (await readSubscription(trx, subscriptionId)) as Subscription;
    const content = (Object.keys(changes) as Field[]).map((field) => `${field}: '${before[field]}' → '${updated[field]}'`).join('; ');
    await recordActivity(trx, ctx, { object_type: 'subscription', object_id: subscriptionId, title: 'Vendor IDs updated', content }, afterCommit);
    afterCommit(() => ctx.hooks.doAction('store/subscription/updated', updated, before));
    return updated;
  });
  const { id, collection_method, current_payment_method, vendor_subscription_id, vendor_customer_id } = after;
  return { message: VENDOR_IDS.updated, subscription: { id, collection_method, current_payment_method, vendor_subscription_id, vendor_customer_id } };
}

/** What verification shows of the gateway's subscription; `amount` is a decimal string of its currency (spec). */
function verificationOf(remote: RemoteSubscription) {
  return {
    id: remote.id,
    status: remote.status,
    customer_id: remote.customer_id,
    amount: centsToDecimal(remote.amount, minorUnits(remote.currency)),
    currency: remote.currency,
    next_billing_date: remote.next_billing_date,
  };
}

/**
 * `POST .../verify-vendor-ids`: asks the gateway whether it has a subscription by these ids, writing nothing (advisory:
 * a hit only proves the id exists in the merchant account; the duplicate check on save is the hard guard). 404 when
 * the gateway has none (or, with a customer id, none of that customer); 502 when it refused or did not answer.
 */
export async function verifyVendorIds(ctx: Ctx, orderId: number, subscriptionId: number, input: VendorIdsInput) {
  const subscription = await editableSubscription(ctx, orderId, subscriptionId, input, ['vendor_subscription_id']);
  const gateway = gatewayOf(ctx, subscription);
  if (!gateway?.capabilities.verify_vendor_ids || !gateway.lookupSubscription) throw fail('invalid_state', VENDOR_IDS.noLookup);
  const { mode } = await gatewaySubscriptionOf(ctx.db, subscription);
  let remote: RemoteSubscription | null;
  try {
    remote = await gateway.lookupSubscription(ctx, {
      vendor_subscription_id: input.vendor_subscription_id as string,
      vendor_customer_id: input.vendor_customer_id ?? '',
      mode,
    });
  } catch (error) {
    throw fail('invalid_state', gatewayFailure(ctx, titleOf(gateway, subscription), error, 'the gateway did not look the subscription up'), { status: 502 });
  }
  if (!remote) throw fail('not_found', VENDOR_IDS.notFound);
  return { message: VENDOR_IDS.found, verification: verificationOf(remote) };
}
