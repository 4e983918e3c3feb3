import { route, type RouteDef } from '../../core/routes';
import { exportBatch } from './batch';
import { EXPORT_ENTITIES } from './entities';
import { exportSchema } from './schema-response';
import { ExportBatchBody } from './schemas';
import type { AnyExportEntity } from './types';

/** Spec "Data export": a schema and a batch route per entity, under the entity's policy and export permission. */
function entityRoutes(entity: AnyExportEntity): RouteDef[] {
  return [
    route({
      method: 'GET',
      path: `/data-export/${entity.entity}/schema`,
      policy: entity.policy,
      permission: entity.permission,
      envelope: 'message',
      handler: async () => exportSchema(entity),
    }),
    route({
      method: 'POST',
      path: `/data-export/${entity.entity}/batch`,
      policy: entity.policy,
      permission: entity.permission,
      schema: { body: ExportBatchBody },
      envelope: 'message',
      handler: async (ctx, { body }) => ({ export: await exportBatch(ctx, entity, body) }),
    }),
  ];
}

/** The licensing module is off (DESIGN §9), so there is no licenses entity: its paths answer the host's 404 `rest_no_route`. */
export const dataExportRoutes: RouteDef[] = Object.values(EXPORT_ENTITIES).flatMap(entityRoutes);
