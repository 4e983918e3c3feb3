import { AdminPolicy } from '../../core/policies';
import { IdParams } from '../../core/schema';
import { route, type RouteDef } from '../../core/routes';
import { CouponBody, CouponListQuery, CouponPatch } from './schemas';
import { createCoupon, deleteCoupon, getCoupon, listCoupons, updateCoupon } from './service';

export const couponRoutes: RouteDef[] = [
  route({
    method: 'GET',
    path: '/coupons',
    policy: AdminPolicy,
    permission: 'coupons/view',
    schema: { query: CouponListQuery },
    envelope: 'message',
    handler: async (ctx, { query }) => ({ coupons: await listCoupons(ctx, query) }),
  }),
  route({
    method: 'POST',
    path: '/coupons',
    policy: AdminPolicy,
    permission: 'coupons/manage',
    schema: { body: CouponBody },
    envelope: 'message',
    handler: async (ctx, { body }) => ({ message: 'Coupon created successfully!', coupon: await createCoupon(ctx, body) }),
  }),
  route({
    method: 'GET',
    path: '/coupons/:id',
    policy: AdminPolicy,
    permission: 'coupons/view',
    schema: { params: IdParams },
    envelope: 'message',
    handler: async (ctx, { params }) => ({ coupon: await getCoupon(ctx, params.id) }),
  }),
  route({
    method: 'PUT',
    path: '/coupons/:id',
    policy: AdminPolicy,
    permission: 'coupons/manage',
    schema: { params: IdParams, body: CouponPatch },
    envelope: 'message',
    handler: async (ctx, { params, body }) => ({ message: 'Coupon updated successfully!', coupon: await updateCoupon(ctx, params.id, body) }),
  }),
  route({
    method: 'DELETE',
    path: '/coupons/:id',
    policy: AdminPolicy,
    permission: 'coupons/delete',
    schema: { params: IdParams },
    envelope: 'message',
    handler: async (ctx, { params }) => {
      await deleteCoupon(ctx, params.id);
      return { message: 'Coupon deleted successfully!' };
    },
  }),
];
