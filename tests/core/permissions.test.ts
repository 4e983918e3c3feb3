import fs from 'node:fs';
import path from 'node:path';
import { ALL_PERMISSIONS } from '../../src/core/permissions';
import { STORE_ROLES } from '../../src/core/roles';
import { storeRoutes } from '../../src/plugin';
import { BASE, startTestApp } from '../support/app';

/**
 * Every permission id the two spec documents (commerce-api.md, admin-api.md) name in their permission tables and
 * policy notes, copied here once so that dropping one from the catalogue is caught without reading the spec.
 */
const SPEC_PERMISSIONS = [
  'customers/export',
  'customers/manage',
  'customers/view',
  'licenses/export',
  'manage_store_settings',
  'orders/can_refund',
  'orders/create',
  'orders/export',
  'orders/manage',
  'orders/view',
  'products/manage',
  'products/view',
  'reports/view',
  'store/sensitive',
  'subscriptions/export',
  'subscriptions/manage',
  'subscriptions/view',
];

/** What a route may declare besides a catalogued permission. */
const NOT_PERMISSIONS = ['public', 'authenticated'];

describe('the permission catalogue', () => {
  it('holds every permission id the spec names', () => {
    expect(ALL_PERMISSIONS).toEqual(expect.arrayContaining(SPEC_PERMISSIONS));
  });

  it('is what plugin.json declares', () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(__dirname, '../../plugin.json'), 'utf8')) as { permissions: string[] };
    expect([...manifest.permissions].sort()).toEqual([...ALL_PERMISSIONS].sort());
  });

  it('holds every permission a store route declares', () => {
    const declared = storeRoutes.flatMap((def) => ([] as string[]).concat(def.permission)).filter((p) => !NOT_PERMISSIONS.includes(p));
    expect(declared.length).toBeGreaterThan(0);
    for (const permission of new Set(declared)) expect(ALL_PERMISSIONS).toContain(permission);
  });

  it('holds every x-permission of the served OpenAPI document', async () => {
    const app = await startTestApp();
    try {
      const res = await app.http.get(`${BASE}/openapi.json`).expect(200);
      const operations = Object.values(res.body.paths as Record<string, Record<string, { 'x-permission'?: string | string[] }>>).flatMap((item) =>
        Object.values(item),
      );
      expect(operations.length).toBeGreaterThan(0);
      for (const op of operations) {
        const permissions = ([] as string[]).concat(op['x-permission'] ?? []);
        expect(permissions.length).toBeGreaterThan(0);
        for (const permission of permissions) expect([...ALL_PERMISSIONS, ...NOT_PERMISSIONS]).toContain(permission);
      }
    } finally {
      await app.close();
    }
  });

  it('the built-in store roles name only catalogued permissions; the shop manager holds them all', () => {
    expect(Object.keys(STORE_ROLES)).toEqual(['shop_manager', 'product_manager', 'order_manager', 'customer_service']);
    for (const role of Object.values(STORE_ROLES)) for (const cap of role.capabilities) expect(ALL_PERMISSIONS).toContain(cap);
    expect(STORE_ROLES.shop_manager.capabilities).toEqual(ALL_PERMISSIONS);
    expect(STORE_ROLES.product_manager.capabilities).toEqual(expect.arrayContaining(['products/view', 'products/manage']));
    expect(STORE_ROLES.order_manager.capabilities).toEqual(expect.arrayContaining(['orders/view', 'orders/manage', 'orders/can_refund']));
    expect(STORE_ROLES.customer_service.capabilities).not.toContain('orders/can_refund');
  });
});
