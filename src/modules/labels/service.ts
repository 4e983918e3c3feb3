import type { Static } from '@sinclair/typebox';
import type { Knex } from 'knex';
import { transaction, type Ctx } from '../../core/context';
import { insertedId, whereContains } from '../../core/db';
import { fail, invalid } from '../../core/errors';
import { runList, type ListInput } from '../../core/list';
import type { Page } from '../../core/page';
import { toTimestamp } from '../../core/time';
import type { LabelBody, LabelPatch } from './schemas';
import type { Label, LabelObjectType } from './types';

interface LabelRow extends Omit<Label, 'id'> {
  id: number | string;
}

function present(row: LabelRow): Label {
  return { id: Number(row.id), title: row.title, color: row.color, created_at: row.created_at, updated_at: row.updated_at };
}

async function find(db: Knex | Knex.Transaction, id: number): Promise<Label> {
  const row = (await db('store_labels').where({ id }).first()) as LabelRow | undefined;
  if (!row) throw fail('not_found', 'Label not found');
  return present(row);
}

async function assertTitleFree(db: Knex | Knex.Transaction, title: string, exceptId?: number): Promise<void> {
  const query = db('store_labels').whereRaw('lower(title) = ?', [title.toLowerCase()]);
  if (exceptId) query.whereNot('id', exceptId);
  if (await query.first('id')) throw invalid('title', 'unique', 'The title has already been taken.');
}

export async function listLabels(ctx: Ctx, input: ListInput): Promise<Page<Label>> {
  const page = await runList<LabelRow>(ctx, ctx.db('store_labels').select('*'), input, {
    limits: { max: 200, default: 10 },
    sortable: { id: 'id', title: 'title', created_at: 'created_at' },
    defaultSort: 'id',
    search: { columns: { id: { column: 'id', kind: 'integer' } }, idColumn: 'id', text: (q, text) => whereContains(q, 'title', text) },
  });
  return { ...page, data: page.data.map(present) };
}

export const getLabel = (ctx: Ctx, id: number) => find(ctx.db, id);

export async function createLabel(ctx: Ctx, input: Static<typeof LabelBody>): Promise<Label> {
  const title = input.title.trim();
  return transaction(ctx, async (trx, afterCommit) => {
    await assertTitleFree(trx, title);
    const now = toTimestamp(ctx.clock.now());
    const id = insertedId(await trx('store_labels').insert({ title, color: input.color ?? '', created_at: now, updated_at: now }));
    const label = await find(trx, id);
    afterCommit(() => ctx.hooks.doAction('store/label/created', label));
    return label;
  });
}

export async function updateLabel(ctx: Ctx, id: number, input: Static<typeof LabelPatch>): Promise<Label> {
  return transaction(ctx, async (trx, afterCommit) => {
    const previous = await find(trx, id);
    const changes: Partial<LabelRow> = { updated_at: toTimestamp(ctx.clock.now()) };
    if (input.title !== undefined) {
      changes.title = input.title.trim();
      await assertTitleFree(trx, changes.title, id);
    }
    if (input.color !== undefined) changes.color = input.color;
    await trx('store_labels').where({ id }).update(changes);
    const label = await find(trx, id);
    afterCommit(() => ctx.hooks.doAction('store/label/updated', label, previous));
    return label;
  });
}

export async function deleteLabel(ctx: Ctx, id: number): Promise<void> {
  await transaction(ctx, async (trx, afterCommit) => {
    const label = await find(trx, id);
    await trx('store_label_relations').where({ label_id: id }).delete();
    await trx('store_labels').where({ id }).delete();
    afterCommit(() => ctx.hooks.doAction('store/label/deleted', label));
  });
}

/** Replaces an object's labels with exactly `labelIds` (unknown ids are a 422). */
export async function syncLabels(trx: Knex.Transaction, ctx: Ctx, objectType: LabelObjectType, objectId: number, labelIds: number[]): Promise<number[]> {
  const wanted = [...new Set(labelIds)];
  if (wanted.length) {
    const found = ((await trx('store_labels').whereIn('id', wanted).select('id')) as Array<{ id: number }>).map((r) => Number(r.id));
    const missing = wanted.filter((id) => !found.includes(id));
    if (missing.length) throw invalid('labels', 'exists', `The selected labels are invalid: ${missing.join(', ')}.`);
  }
  await trx('store_label_relations')
    .where({ object_type: objectType, object_id: objectId })
    .whereNotIn('label_id', wanted.length ? wanted : [0])
    .delete();
  const existing = (
    (await trx('store_label_relations').where({ object_type: objectType, object_id: objectId }).select('label_id')) as Array<{ label_id: number }>
  ).map((r) => Number(r.label_id));
  const now = toTimestamp(ctx.clock.now());
  const added = wanted.filter((id) => !existing.includes(id));
  if (added.length)
    await trx('store_label_relations').insert(added.map((label_id) => ({ label_id, object_type: objectType, object_id: objectId, created_at: now })));
  return wanted;
}

/** The labels of many objects at once: object id → labels. */
export async function labelsFor(db: Knex | Knex.Transaction, objectType: LabelObjectType, objectIds: number[]): Promise<Map<number, Label[]>> {
  const out = new Map<number, Label[]>(objectIds.map((id) => [id, []]));
  if (!objectIds.length) return out;
  const rows = (await db('store_label_relations as r')
    .join('store_labels as l', 'l.id', 'r.label_id')
    .where('r.object_type', objectType)
    .whereIn('r.object_id', objectIds)
    .orderBy('l.id')
    .select('r.object_id', 'l.*')) as Array<LabelRow & { object_id: number | string }>;
  for (const row of rows) out.get(Number(row.object_id))?.push(present(row));
  return out;
}

/** A stored label as the API shows it (for readers that load labels in their own queries). */
export { present as presentLabel };
