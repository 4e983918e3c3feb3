import { StoreSensitivePolicy, StoreSettingsPolicy } from '../../core/policies';
import { IdParams } from '../../core/schema';
import { route, type RouteDef } from '../../core/routes';
import { MethodBody, MethodListQuery, MethodPatch, ZoneBody, ZonePatch } from './schemas';
import { createMethod, createZone, deleteMethod, deleteZone, getMethod, getZone, listMethods, listZones, updateMethod, updateZone } from './service';

/** Shipping zones and methods: read with `store/settings`, written with `store/sensitive`. */
export const shippingRoutes: RouteDef[] = [
  route({
    method: 'GET',
    path: '/shipping/zones',
    policy: StoreSettingsPolicy,
    permission: 'store/settings',
    envelope: 'message',
    handler: async (ctx) => ({ zones: await listZones(ctx) }),
  }),
  route({
    method: 'POST',
    path: '/shipping/zones',
    policy: StoreSensitivePolicy,
    permission: 'store/sensitive',
    schema: { body: ZoneBody },
    envelope: 'message',
    handler: async (ctx, { body }) => ({ message: 'Shipping zone created successfully!', zone: await createZone(ctx, body) }),
  }),
  route({
    method: 'GET',
    path: '/shipping/zones/:id',
    policy: StoreSettingsPolicy,
    permission: 'store/settings',
    schema: { params: IdParams },
    envelope: 'message',
    handler: async (ctx, { params }) => ({ zone: await getZone(ctx, params.id) }),
  }),
  route({
    method: 'PUT',
    path: '/shipping/zones/:id',
    policy: StoreSensitivePolicy,
    permission: 'store/sensitive',
    schema: { params: IdParams, body: ZonePatch },
    envelope: 'message',
    handler: async (ctx, { params, body }) => ({ message: 'Shipping zone updated successfully!', zone: await updateZone(ctx, params.id, body) }),
  }),
  route({
    method: 'DELETE',
    path: '/shipping/zones/:id',
    policy: StoreSensitivePolicy,
    permission: 'store/sensitive',
    schema: { params: IdParams },
    envelope: 'message',
    handler: async (ctx, { params }) => {
      await deleteZone(ctx, params.id);
      return { message: 'Shipping zone deleted successfully!' };
    },
  }),
  route({
    method: 'GET',
    path: '/shipping/methods',
    policy: StoreSettingsPolicy,
    permission: 'store/settings',
    schema: { query: MethodListQuery },
    envelope: 'message',
    handler: async (ctx, { query }) => ({ methods: await listMethods(ctx, query) }),
  }),
  route({
    method: 'POST',
    path: '/shipping/methods',
    policy: StoreSensitivePolicy,
    permission: 'store/sensitive',
    schema: { body: MethodBody },
    envelope: 'message',
    handler: async (ctx, { body }) => ({ message: 'Shipping method created successfully!', method: await createMethod(ctx, body) }),
  }),
  route({
    method: 'GET',
    path: '/shipping/methods/:id',
    policy: StoreSettingsPolicy,
    permission: 'store/settings',
    schema: { params: IdParams },
    envelope: 'message',
    handler: async (ctx, { params }) => ({ method: await getMethod(ctx, params.id) }),
  }),
  route({
    method: 'PUT',
    path: '/shipping/methods/:id',
    policy: StoreSensitivePolicy,
    permission: 'store/sensitive',
    schema: { params: IdParams, body: MethodPatch },
    envelope: 'message',
    handler: async (ctx, { params, body }) => ({ message: 'Shipping method updated successfully!', method: await updateMethod(ctx, params.id, body) }),
  }),
  route({
    method: 'DELETE',
    path: '/shipping/methods/:id',
    policy: StoreSensitivePolicy,
    permission: 'store/sensitive',
    schema: { params: IdParams },
    envelope: 'message',
    handler: async (ctx, { params }) => {
      await deleteMethod(ctx, params.id);
      return { message: 'Shipping method deleted successfully!' };
    },
  }),
];
