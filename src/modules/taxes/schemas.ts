import { Type, type Static } from '@sinclair/typebox';
import { listQuery } from '../../core/list';
import { Id, oneOf } from '../../core/schema';

/** Spec: the list view of tax records. */
export const TAX_VIEWS = ['filed', 'not_filed'] as const;

/** Relations `with[]` may load, one query each for the whole page. */
export const TAX_RELATIONS = ['order', 'tax_rate'] as const;
export type TaxRelation = (typeof TAX_RELATIONS)[number];

/** The fields of a record `select[]` may name (`id` is always returned). */
export const TAX_FIELDS = ['id', 'order_id', 'tax_rate_id', 'shipping_tax', 'order_tax', 'total_tax', 'meta', 'filed_at', 'created_at', 'updated_at'] as const;

export const TaxListQuery = listQuery({
  active_view: Type.Optional(
    Type.Union(
      TAX_VIEWS.map((v) => Type.Literal(v)),
      { messages: { in: `The active view must be one of: ${TAX_VIEWS.join(', ')}.` } },
    ),
  ),
  filter_type: Type.Optional(oneOf(['simple', 'advanced'])),
  /** JSON groups of `{property, operator, value}` over `country`, `state`, `name` (the tax rate's) and `filed_at` (`filed`/`not_filed`). */
  advanced_filters: Type.Optional(Type.String({ maxLength: 20000 })),
  with: Type.Optional(
    Type.Array(
      Type.Union(
        TAX_RELATIONS.map((v) => Type.Literal(v)),
        { messages: { in: `The with field accepts ${TAX_RELATIONS.join(', ')}.` } },
      ),
      {
        maxItems: 10,
      },
    ),
  ),
  /** Fields to return, `select[]=order_id` or `select[]=order_id,total_tax`. */
  select: Type.Optional(Type.Array(Type.String({ maxLength: 500 }), { maxItems: 20 })),
  /** Records always included in the answer whatever the filters. */
  include_ids: Type.Optional(Type.Array(Id(), { maxItems: 200 })),
});
export type TaxListInput = Static<typeof TaxListQuery>;

/** The most records one request may mark as filed. */
export const MAX_MARK_IDS = 1000;

/**
 * `ids`: an array of record ids. A value of any other type (or none) passes the schema and gets the spec's 400 'No IDs
 * provided to mark!' from the service; `items` and `maxItems` apply to arrays only, so an array with an entry that is
 * not an id is a 422 naming that entry (`ids.1`).
 */
export const MarkFiledBody = Type.Object({
  ids: Type.Optional(
    Type.Unsafe<number[] | string | number | boolean | null | Record<string, unknown>>({
      type: ['array', 'string', 'number', 'boolean', 'null', 'object'],
      items: Id(),
      maxItems: MAX_MARK_IDS,
    }),
  ),
});
export type MarkFiledInput = Static<typeof MarkFiledBody>;
