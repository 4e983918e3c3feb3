/**
 * The exportable entities, by their path segment. A light list (no entity code) so the CLI can register its
 * `export <entity>` commands without loading the store's services; `entities/index.ts` gives one entity per name.
 */
export const EXPORT_ENTITY_NAMES = ['orders', 'customers', 'subscriptions'] as const;
export type ExportEntityName = (typeof EXPORT_ENTITY_NAMES)[number];
