import type { Knex } from 'knex';
import type { Ctx } from '../../core/context';
import { insertedId, type AfterCommit } from '../../core/db';
import { fail } from '../../core/errors';
import { runList } from '../../core/list';
import type { Page } from '../../core/page';
import type { Permission } from '../../core/permissions';
import { toTimestamp } from '../../core/time';
import { ACTIVITY_OBJECT_TYPES, type Activity, type ActivityObjectType } from './types';

/** Who may read the log of each kind of object. */
export const ACTIVITY_READ_PERMISSION: Record<ActivityObjectType, Permission> = {
  product: 'products/view',
  coupon: 'coupons/view',
  customer: 'customers/view',
  order: 'orders/view',
  subscription: 'subscriptions/view',
  shipping: 'store/settings',
  settings: 'store/settings',
  category: 'products/view',
  tax_override: 'store/settings',
  tax_rate: 'store/settings',
  tax_class: 'store/settings',
  role: 'manage_store_settings',
};

export interface ActivityEntry {
  object_type: ActivityObjectType;
  object_id: number;
  title: string;
  content?: string;
  status?: Activity['status'];
}

interface ActivityRow extends Omit<Activity, 'id' | 'object_id' | 'user_id'> {
  id: number | string;
  object_id: number | string;
  user_id: number | null;
}

function present(row: ActivityRow): Activity {
  return {
    ...row,
    id: Number(row.id),
    object_id: Number(row.object_id),
    user_id: row.user_id === null ? null : Number(row.user_id),
    content: row.content ?? '',
  };
}

/** Writes one log entry inside the caller's transaction; `store/activity/created` fires after the commit. */
export async function recordActivity(trx: Knex.Transaction, ctx: Ctx, entry: ActivityEntry, afterCommit: AfterCommit): Promise<Activity> {
  const row = {
    object_type: entry.object_type,
    object_id: entry.object_id,
    title: entry.title,
    content: entry.content ?? '',
    status: entry.status ?? 'info',
    user_id: ctx.user?.id ?? null,
    // The column holds 191 characters; a display name may have 250.
    created_by: Array.from(ctx.user?.display_name ?? 'System')
      .slice(0, 191)
      .join(''),
    created_at: toTimestamp(ctx.clock.now()),
  };
  const activity: Activity = { id: insertedId(await trx('store_activities').insert(row)), ...row };
  afterCommit(() => ctx.hooks.doAction('store/activity/created', activity));
  return activity;
}

export interface ActivityQuery {
  object_type?: ActivityObjectType;
  object_id?: number;
  page?: unknown;
  per_page?: unknown;
  sort_type?: string;
}

/** The log, newest first, limited to the kinds of object the caller may read. */
export async function listActivities(ctx: Ctx, input: ActivityQuery): Promise<Page<Activity>> {
  const readable = ACTIVITY_OBJECT_TYPES.filter((type) => ctx.can(ACTIVITY_READ_PERMISSION[type]));
  if (input.object_type && !readable.includes(input.object_type)) throw fail('rest_forbidden', undefined, { status: 403 });
  const query = ctx.db('store_activities').select('*');
  if (input.object_type) query.where('object_type', input.object_type);
  else query.whereIn('object_type', readable);
  if (input.object_id !== undefined) query.where('object_id', input.object_id);
  const page = await runList<ActivityRow>(
    ctx,
    query,
    { ...input, sort_by: 'id' },
    { limits: { max: 200, default: 20 }, sortable: { id: 'id' }, defaultSort: 'id' },
  );
  return { ...page, data: page.data.map(present) };
}

/** The newest entries of one object, for detail views. */
export async function activitiesOf(db: Knex, objectType: ActivityObjectType, objectId: number, limit = 50): Promise<Activity[]> {
  const rows = (await db('store_activities').where({ object_type: objectType, object_id: objectId }).orderBy('id', 'desc').limit(limit)) as ActivityRow[];
  return rows.map(present);
}

/** A stored log entry as the API shows it (for readers that load entries in their own queries). */
export { present as presentActivity };
