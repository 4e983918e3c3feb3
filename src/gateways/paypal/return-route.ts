import { Type } from '@sinclair/typebox';
import { invalid } from '../../core/errors';
import { PublicPolicy } from '../../core/policies';
import { Reply, route, type RouteDef } from '../../core/routes';
import { returnFromPayPal } from './return';
import { returnFromPayPalSubscription } from './subscriptions-return';

const Redirect = Type.Object({ redirect_url: Type.String({ format: 'uri' }) }, { description: 'Also in the `Location` header.' });

/**
 * PayPal sends the shopper here after approving a payment (`startPayment` gives PayPal this URL; PayPal appends the
 * order's `token`) or a subscription (`startSubscription`; PayPal appends `subscription_id`, `ba_token` and `token`).
 */
export const paypalReturnRoutes: RouteDef[] = [
  route({
    method: 'GET',
    path: '/checkout/paypal/return',
    policy: PublicPolicy,
    permission: 'public',
    schema: {
      query: Type.Object({
        token: Type.Optional(
          Type.String({
            minLength: 1,
            maxLength: 64,
            pattern: '^[A-Za-z0-9-]+$',
            description: 'The PayPal order id PayPal appends (required unless `subscription_id` is given).',
          }),
        ),
        subscription_id: Type.Optional(
          Type.String({
            minLength: 1,
            maxLength: 45,
            pattern: '^[A-Za-z0-9-]+$',
            description: 'The PayPal subscription id PayPal appends after a subscription was approved.',
          }),
        ),
        order_hash: Type.Optional(Type.String({ maxLength: 64, description: "The store order's uuid, part of the return URL." })),
      }),
    },
    envelope: 'message',
    answers: {
      302: {
        description: 'To the receipt (paid, or PayPal still reviewing the capture or taking the first payment), or back to the checkout when PayPal declined.',
        schema: Redirect,
      },
    },
    handler: async (ctx, { query: { token, subscription_id, order_hash } }) => {
      const returned = async () => {
        if (subscription_id) return returnFromPayPalSubscription(ctx, { subscription_id, order_hash });
        if (token) return returnFromPayPal(ctx, { token, order_hash });
        throw invalid('token', 'required', 'token is required.');
      };
      const { redirect_url } = await returned();
      return new Reply({ redirect_url }, 302, { Location: redirect_url });
    },
  }),
];
