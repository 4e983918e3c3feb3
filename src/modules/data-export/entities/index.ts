import type { ExportEntityName } from '../names';
import type { AnyExportEntity } from '../types';
import { customersExport } from './customers';
import { ordersExport } from './orders';
import { subscriptionsExport } from './subscriptions';

/** Every exportable entity, by name: the routes and the CLI read them from here. */
export const EXPORT_ENTITIES: Record<ExportEntityName, AnyExportEntity> = {
  orders: ordersExport,
  customers: customersExport,
  subscriptions: subscriptionsExport,
};
