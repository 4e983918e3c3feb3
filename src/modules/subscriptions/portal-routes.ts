import { Type } from '@sinclair/typebox';
import { fail } from '../../core/errors';
import type { Envelope } from '../../core/envelopes';
import { CustomerFrontendPolicy, PublicPolicy } from '../../core/policies';
import { hourlyClass, type RequestClass } from '../../core/ratelimit';
import { route, type RouteDef } from '../../core/routes';
import type { HttpMethod } from '../../host/contract';
import { cancelAutoRenew } from './portal/cancel';
import { updatePaymentMethod } from './portal/payment-method';
import { portalPlan } from './portal/plan';
import { confirmReactivation } from './portal/reactivation';
import { emptyPortalPage, portalSubscriptionDetail, portalSubscriptionPage } from './portal/read';
import {
  CancelAutoRenewBody,
  ConfirmReactivationBody,
  ConfirmReactivationQuery,
  ConfirmSwitchBody,
  PlanBody,
  PortalListQuery,
  PortalSubscriptionParams,
  SwitchPaymentMethodBody,
  UpdatePaymentMethodBody,
} from './portal/schemas';
import { confirmSubscriptionSwitch, switchPaymentMethod } from './portal/switch';

const BASE = '/customer-profile/subscriptions';
const ONE = `${BASE}/:subscription_uuid`;

/** The spec's hourly classes, counted per user with the admin subscription routes (`subscriptions:<class>`). */
const limit = (kind: RequestClass) => hourlyClass('subscriptions', kind, 'subscriptions/view');

const gatewayFailed = {
  502: {
    description: 'The payment gateway refused the change or did not answer; nothing changed: `{success: false, error: {code: "gateway_error", message}}`.',
    schema: Type.Object({ success: Type.Literal(false), error: Type.Object({ code: Type.Literal('gateway_error'), message: Type.String() }) }),
  },
};

/**
 * The answer to a caller who is not logged in, declared after the CustomerFrontendPolicy variant of the same path: it
 * is reached only when that policy turned the caller away (anonymous callers), and validates, counts and reads nothing.
 */
function anonymous(method: HttpMethod, path: string, envelope: Envelope): RouteDef {
  return route({
    method,
    path,
    policy: PublicPolicy,
    permission: 'public',
    envelope,
    handler: () =>
      Promise.reject(
        envelope === 'legacy'
          ? fail('insufficient_permissions', 'You must be logged in to manage your subscriptions.', { status: 401 })
          : fail('rest_forbidden', 'You are not logged in', { status: 401 }),
      ),
  });
}

/** A portal action in the earlier style: `{success: true, data}`, errors `{success: false, error: {code, message}}`. */
const succeeded = (data: unknown) => ({ success: true, data });

const actions: RouteDef[] = [
  route({
    method: 'POST',
    path: `${ONE}/update-payment-method`,
    policy: CustomerFrontendPolicy,
    permission: 'authenticated',
    schema: { params: PortalSubscriptionParams, body: UpdatePaymentMethodBody },
    envelope: 'legacy',
    rateLimit: limit('update'),
    answers: gatewayFailed,
    handler: async (ctx, { params, body }) => succeeded({ subscription: await updatePaymentMethod(ctx, params.subscription_uuid, body) }),
  }),
  route({
    method: 'POST',
    path: `${ONE}/get-or-create-plan`,
    policy: CustomerFrontendPolicy,
    permission: 'authenticated',
    schema: { params: PortalSubscriptionParams, body: PlanBody },
    envelope: 'legacy',
    rateLimit: limit('create'),
    answers: gatewayFailed,
    handler: async (ctx, { params, body }) => succeeded({ plan: await portalPlan(ctx, params.subscription_uuid, body) }),
  }),
  route({
    method: 'POST',
    path: `${ONE}/switch-payment-method`,
    policy: CustomerFrontendPolicy,
    permission: 'authenticated',
    schema: { params: PortalSubscriptionParams, body: SwitchPaymentMethodBody },
    envelope: 'legacy',
    rateLimit: limit('update'),
    handler: async (ctx, { params, body }) => succeeded(await switchPaymentMethod(ctx, params.subscription_uuid, body)),
  }),
  route({
    method: 'POST',
    path: `${ONE}/confirm-subscription-switch`,
    policy: CustomerFrontendPolicy,
    permission: 'authenticated',
    schema: { params: PortalSubscriptionParams, body: ConfirmSwitchBody },
    envelope: 'legacy',
    rateLimit: limit('update'),
    answers: gatewayFailed,
    handler: async (ctx, { params, body }) => succeeded({ subscription: await confirmSubscriptionSwitch(ctx, params.subscription_uuid, body) }),
  }),
  route({
    method: 'POST',
    path: `${ONE}/confirm-subscription-reactivation`,
    policy: CustomerFrontendPolicy,
    permission: 'authenticated',
    schema: { params: PortalSubscriptionParams, query: ConfirmReactivationQuery, body: ConfirmReactivationBody },
    envelope: 'legacy',
    rateLimit: limit('update'),
    answers: gatewayFailed,
    handler: async (ctx, { params, query, body }) =>
      succeeded({ subscription: await confirmReactivation(ctx, params.subscription_uuid, body.reactivation_token ?? query.reactivation_token) }),
  }),
  route({
    method: 'POST',
    path: `${ONE}/cancel-auto-renew`,
    policy: CustomerFrontendPolicy,
    permission: 'authenticated',
    schema: { params: PortalSubscriptionParams, body: CancelAutoRenewBody },
    envelope: 'legacy',
    rateLimit: limit('cancel'),
    answers: gatewayFailed,
    handler: async (ctx, { params, body }) => succeeded({ subscription: await cancelAutoRenew(ctx, params.subscription_uuid, body) }),
  }),
];

/**
 * Customer portal subscriptions (spec: "Subscriptions, customer portal"): the caller's own subscriptions by uuid,
 * ownership in the query (`customerIdOf` + `ownedBy`); another customer's uuid is not found. The reads answer in
 * `{message}`, the actions in the earlier style. Not logged in: the list is an empty page (spec), the detail 401
 * `{message: 'You are not logged in'}`, the actions 401 `insufficient_permissions`. Request classes: the reads `list`,
 * the plan `create`, the payment-method and confirmation actions `update`, cancel-auto-renew `cancel`.
 */
export const subscriptionPortalRoutes: RouteDef[] = [
  route({
    method: 'GET',
    path: BASE,
    policy: CustomerFrontendPolicy,
    permission: 'authenticated',
    schema: { query: PortalListQuery },
    envelope: 'message',
    rateLimit: limit('list'),
    handler: async (ctx, { query }) => ({ message: 'Success', subscriptions: await portalSubscriptionPage(ctx, query) }),
  }),
  route({
    method: 'GET',
    path: BASE,
    policy: PublicPolicy,
    permission: 'public',
    schema: { query: PortalListQuery },
    envelope: 'message',
    handler: async (_ctx, { query }) => ({ message: 'Success', subscriptions: emptyPortalPage(query) }),
  }),
  route({
    method: 'GET',
    path: ONE,
    policy: CustomerFrontendPolicy,
    permission: 'authenticated',
    schema: { params: PortalSubscriptionParams },
    envelope: 'message',
    rateLimit: limit('list'),
    handler: async (ctx, { params }) => ({ message: 'Success', subscription: await portalSubscriptionDetail(ctx, params.subscription_uuid) }),
  }),
  anonymous('GET', ONE, 'message'),
  ...actions,
  ...actions.map((def) => anonymous(def.method, def.path, 'legacy')),
];
