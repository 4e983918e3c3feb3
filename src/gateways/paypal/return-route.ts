import { Type } from '@sinclair/typebox';
import { PublicPolicy } from '../../core/policies';
import { Reply, route, type RouteDef } from '../../core/routes';
import { returnFromPayPal } from './return';

const Redirect = Type.Object({ redirect_url: Type.String({ format: 'uri' }) }, { description: 'Also in the `Location` header.' });

/** PayPal sends the shopper here after approving a payment (`startPayment` gives PayPal this URL). */
export const paypalReturnRoutes: RouteDef[] = [
  route({
    method: 'GET',
    path: '/checkout/paypal/return',
    policy: PublicPolicy,
    permission: 'public',
    schema: {
      query: Type.Object({
        token: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9-]+$', description: 'The PayPal order id PayPal appends.' }),
        order_hash: Type.Optional(Type.String({ maxLength: 64, description: "The store order's uuid, part of the return URL." })),
      }),
    },
    envelope: 'message',
    answers: {
      302: { description: 'To the receipt (paid, or PayPal still reviewing the capture), or back to the checkout when PayPal declined.', schema: Redirect },
    },
    handler: async (ctx, { query }) => {
      const { redirect_url } = await returnFromPayPal(ctx, query);
      return new Reply({ redirect_url }, 302, { Location: redirect_url });
    },
  }),
];
