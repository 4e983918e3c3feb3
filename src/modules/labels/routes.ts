import { AdminPolicy } from '../../core/policies';
import { listQuery } from '../../core/list';
import { IdParams } from '../../core/schema';
import { route, type RouteDef } from '../../core/routes';
import { LabelBody, LabelPatch } from './schemas';
import { createLabel, deleteLabel, getLabel, listLabels, updateLabel } from './service';

export const labelRoutes: RouteDef[] = [
  route({
    method: 'GET',
    path: '/labels',
    policy: AdminPolicy,
    permission: 'labels/view',
    schema: { query: listQuery() },
    envelope: 'message',
    handler: async (ctx, { query }) => ({ labels: await listLabels(ctx, query) }),
  }),
  route({
    method: 'POST',
    path: '/labels',
    policy: AdminPolicy,
    permission: 'labels/manage',
    schema: { body: LabelBody },
    envelope: 'message',
    handler: async (ctx, { body }) => ({ message: 'Label created successfully!', label: await createLabel(ctx, body) }),
  }),
  route({
    method: 'GET',
    path: '/labels/:id',
    policy: AdminPolicy,
    permission: 'labels/view',
    schema: { params: IdParams },
    envelope: 'message',
    handler: async (ctx, { params }) => ({ label: await getLabel(ctx, params.id) }),
  }),
  route({
    method: 'PUT',
    path: '/labels/:id',
    policy: AdminPolicy,
    permission: 'labels/manage',
    schema: { params: IdParams, body: LabelPatch },
    envelope: 'message',
    handler: async (ctx, { params, body }) => ({ message: 'Label updated successfully!', label: await updateLabel(ctx, params.id, body) }),
  }),
  route({
    method: 'DELETE',
    path: '/labels/:id',
    policy: AdminPolicy,
    permission: 'labels/delete',
    schema: { params: IdParams },
    envelope: 'message',
    handler: async (ctx, { params }) => {
      await deleteLabel(ctx, params.id);
      return { message: 'Label deleted successfully!' };
    },
  }),
];
