import fs from 'node:fs';
import path from 'node:path';
import { ALL_PERMISSIONS } from '../../src/core/permissions';
import { STORE_ROLES } from '../../src/core/roles';

const specs = ['commerce-api.md', 'admin-api.md'].map((f) => fs.readFileSync(path.join(__dirname, '../../../shared/spec', f), 'utf8')).join('\n');

describe('the permission catalogue', () => {
  it('holds every permission id named in both spec documents', () => {
    const named = new Set(
      [...specs.matchAll(/`([a-z_]+\/[a-z_]+)`/g)]
        .map((m) => m[1])
        .filter((id) => /^(customers|orders|subscriptions|licenses|reports|store|products)\//.test(id)),
    );
    named.add('manage_store_settings');
    for (const id of named) expect(ALL_PERMISSIONS).toContain(id);
  });

  it('is what plugin.json declares', () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(__dirname, '../../plugin.json'), 'utf8')) as { permissions: string[] };
    expect([...manifest.permissions].sort()).toEqual([...ALL_PERMISSIONS].sort());
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
