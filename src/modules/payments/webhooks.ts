import { transaction, type Ctx } from '../../core/context';
import { isUniqueViolation } from '../../core/db';
import { fail } from '../../core/errors';
import { toTimestamp } from '../../core/time';
import { WebhookRejected, type WebhookDelivery } from '../../gateways/gateway';
import { paymentGateways } from '../../gateways/registry';

const EVENTS = 'store_webhook_events';

export interface WebhookAnswer {
  received: true;
  /** The event was already applied by an earlier delivery: nothing was done again. */
  duplicate: boolean;
}

/**
 * `POST /webhooks/{gateway}`: a gateway's notification. The signature is checked first (a forged, tampered or stale
 * one is a 400 and writes nothing); then, in one transaction, the event id is recorded (unique per gateway) and the
 * event applied. A second delivery of the same event, even at the same moment, finds the id taken and does nothing;
 * when applying fails the transaction rolls back, the id with it, and the gateway's retry applies it.
 */
export async function receiveWebhook(ctx: Ctx, gatewayKey: string, delivery: WebhookDelivery): Promise<WebhookAnswer> {
  const gateway = paymentGateways(ctx).get(gatewayKey);
  if (!gateway?.verifyWebhook || !gateway.applyWebhook) throw fail('not_found', 'Unknown payment gateway', { status: 404 });
  const apply = gateway.applyWebhook.bind(gateway);
  let event;
  try {
    event = await gateway.verifyWebhook(ctx, delivery);
  } catch (error) {
    if (error instanceof WebhookRejected) throw fail('invalid_state', error.message, { status: 400 });
    throw error;
  }
  const verified = event;
  try {
    return await transaction(ctx, async (trx, afterCommit) => {
      const now = toTimestamp(ctx.clock.now());
      const [id] = await trx(EVENTS).insert({ gateway: gateway.key, event_id: verified.id, event_type: verified.type.slice(0, 100), created_at: now });
      const outcome = await apply(ctx, trx, afterCommit, verified);
      await trx(EVENTS)
        .where({ id: Number(id) })
        .update({ outcome: outcome.slice(0, 255) });
      return { received: true as const, duplicate: false };
    });
  } catch (error) {
    if (isUniqueViolation(error)) return { received: true, duplicate: true };
    throw error;
  }
}
