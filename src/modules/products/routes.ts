import { AdminPolicy } from '../../core/policies';
import { IdParams } from '../../core/schema';
import { route, type RouteDef } from '../../core/routes';
import { createCategory, deleteCategory, getCategory, listCategories, updateCategory } from './categories';
import { CategoryBody, CategoryPatch, ProductBody, ProductListQuery, ProductPatch, VariationBody, VariationParams, VariationPatch } from './schemas';
import { createProduct, deleteProduct, getProduct, listProducts, updateProduct } from './service';
import { createVariation, deleteVariation, listVariations, updateVariation } from './variations';

/** `/products/categories…` are literal paths: the router tries them before `/products/:id`. */
const categoryRoutes: RouteDef[] = [
  route({
    method: 'GET',
    path: '/products/categories',
    policy: AdminPolicy,
    permission: 'products/view',
    envelope: 'message',
    handler: async (ctx) => ({ categories: await listCategories(ctx) }),
  }),
  route({
    method: 'POST',
    path: '/products/categories',
    policy: AdminPolicy,
    permission: 'products/manage',
    schema: { body: CategoryBody },
    envelope: 'message',
    handler: async (ctx, { body }) => ({ message: 'Category created successfully!', category: await createCategory(ctx, body) }),
  }),
  route({
    method: 'GET',
    path: '/products/categories/:id',
    policy: AdminPolicy,
    permission: 'products/view',
    schema: { params: IdParams },
    envelope: 'message',
    handler: async (ctx, { params }) => ({ category: await getCategory(ctx, params.id) }),
  }),
  route({
    method: 'PUT',
    path: '/products/categories/:id',
    policy: AdminPolicy,
    permission: 'products/manage',
    schema: { params: IdParams, body: CategoryPatch },
    envelope: 'message',
    handler: async (ctx, { params, body }) => ({ message: 'Category updated successfully!', category: await updateCategory(ctx, params.id, body) }),
  }),
  route({
    method: 'DELETE',
    path: '/products/categories/:id',
    policy: AdminPolicy,
    permission: 'products/delete',
    schema: { params: IdParams },
    envelope: 'message',
    handler: async (ctx, { params }) => {
      await deleteCategory(ctx, params.id);
      return { message: 'Category deleted successfully!' };
    },
  }),
];

const variationRoutes: RouteDef[] = [
  route({
    method: 'GET',
    path: '/products/:id/variations',
    policy: AdminPolicy,
    permission: 'products/view',
    schema: { params: IdParams },
    envelope: 'message',
    handler: async (ctx, { params }) => ({ variations: await listVariations(ctx, params.id) }),
  }),
  route({
    method: 'POST',
    path: '/products/:id/variations',
    policy: AdminPolicy,
    permission: 'products/manage',
    schema: { params: IdParams, body: VariationBody },
    envelope: 'message',
    handler: async (ctx, { params, body }) => ({ message: 'Variation created successfully!', variation: await createVariation(ctx, params.id, body) }),
  }),
  route({
    method: 'PUT',
    path: '/products/:id/variations/:variation_id',
    policy: AdminPolicy,
    permission: 'products/manage',
    schema: { params: VariationParams, body: VariationPatch },
    envelope: 'message',
    handler: async (ctx, { params, body }) => ({
      message: 'Variation updated successfully!',
      variation: await updateVariation(ctx, params.id, params.variation_id, body),
    }),
  }),
  route({
    method: 'DELETE',
    path: '/products/:id/variations/:variation_id',
    policy: AdminPolicy,
    permission: 'products/delete',
    schema: { params: VariationParams },
    envelope: 'message',
    handler: async (ctx, { params }) => {
      await deleteVariation(ctx, params.id, params.variation_id);
      return { message: 'Variation deleted successfully!' };
    },
  }),
];

export const productRoutes: RouteDef[] = [
  route({
    method: 'GET',
    path: '/products',
    policy: AdminPolicy,
    permission: 'products/view',
    schema: { query: ProductListQuery },
    envelope: 'message',
    handler: async (ctx, { query }) => ({ products: await listProducts(ctx, query) }),
  }),
  route({
    method: 'POST',
    path: '/products',
    policy: AdminPolicy,
    permission: 'products/manage',
    schema: { body: ProductBody },
    envelope: 'message',
    handler: async (ctx, { body }) => ({ message: 'Product created successfully!', product: await createProduct(ctx, body) }),
  }),
  route({
    method: 'GET',
    path: '/products/:id',
    policy: AdminPolicy,
    permission: 'products/view',
    schema: { params: IdParams },
    envelope: 'message',
    handler: async (ctx, { params }) => ({ product: await getProduct(ctx, params.id) }),
  }),
  route({
    method: 'PUT',
    path: '/products/:id',
    policy: AdminPolicy,
    permission: 'products/manage',
    schema: { params: IdParams, body: ProductPatch },
    envelope: 'message',
    handler: async (ctx, { params, body }) => ({ message: 'Product updated successfully!', product: await updateProduct(ctx, params.id, body) }),
  }),
  route({
    method: 'DELETE',
    path: '/products/:id',
    policy: AdminPolicy,
    permission: 'products/delete',
    schema: { params: IdParams },
    envelope: 'message',
    handler: async (ctx, { params }) => {
      await deleteProduct(ctx, params.id);
      return { message: 'Product deleted successfully!' };
    },
  }),
  ...variationRoutes,
  ...categoryRoutes,
];
