import type { Response } from 'supertest';
import { STORE_ROLES } from '../../src/core/roles';
import type { RouteDef } from '../../src/core/routes';
import { storeRoutes } from '../../src/plugin';
import { BASE, startTestApp, type TestApp, type TestUser } from '../support/app';

/**
 * The role × route table: every route of the store that names permissions (grown from `storeRoutes`, so a new route
 * joins it by itself), asked once by a user holding only one built-in role, by an administrator and by a plain
 * customer. A role is let through iff it holds one of the route's permissions (any-of); otherwise 403
 * `rest_forbidden`. A route whose path also has a portal variant (`CustomerFrontendPolicy`) hands a refused caller to
 * that variant, so there "denied" is: answered exactly as the customer is, and "allowed": exactly as the administrator.
 */

const ROLES = Object.keys(STORE_ROLES);
const ABBREVIATIONS: Record<string, string> = { shop_manager: 'SM', product_manager: 'PM', order_manager: 'OM', customer_service: 'CS' };

interface Row {
  method: RouteDef['method'];
  path: string;
  /** The permissions of the route's admin variant: any one of them lets a caller through. */
  permissions: string[];
  /** What the path's other variants, tried after the admin one, declare: `authenticated` for a portal variant. */
  fallbacks: string[];
}

function tableRows(): Row[] {
  const groups = new Map<string, RouteDef[]>();
  for (const def of storeRoutes) {
    const key = `${def.method} ${def.path}`;
    groups.set(key, [...(groups.get(key) ?? []), def]);
  }
  return [...groups.values()].flatMap((defs) => {
    const named = defs.filter((def) => def.policy.requires === 'permission');
    if (!named.length) return [];
    return [
      {
        method: defs[0].method,
        path: defs[0].path,
        permissions: [...new Set(named.flatMap((def) => ([] as string[]).concat(def.permission)))],
        fallbacks: defs.filter((def) => def.policy.requires !== 'permission').map((def) => String(def.permission)),
      },
    ];
  });
}

const ROWS = tableRows();

const holds = (role: string, row: Row) => row.permissions.some((permission) => (STORE_ROLES[role].capabilities as string[]).includes(permission));

/** One line of the table as the test's title: `SM ✓` allowed, `SM ·` denied. */
function title(row: Row): string {
  const cells = ROLES.map((role) => `${ABBREVIATIONS[role] ?? role} ${holds(role, row) ? '✓' : '·'}`);
  return `${row.method} ${row.path} [${row.permissions.join(' | ')}]${row.fallbacks.length ? ' (portal fallback)' : ''}: ${cells.join(' ')}`;
}

const MISSING_ID = 987654;

const answerOf = (res: Response) => ({ status: res.status, body: res.body as unknown });

/** What a failed expectation prints: who asked, the status, the error code, and whether the permission check refused. */
const verdict = (caller: string, res: Response) => ({
  caller,
  status: res.status,
  code: res.body?.code as unknown,
  refused: res.status === 401 || res.status === 403,
});

describe('the role × route table (SM, PM, OM, CS: ✓ let through, · refused; administrators pass every route, customers none)', () => {
  let app: TestApp;
  let callers: Record<string, TestUser>;
  let admin: TestUser;
  let customer: TestUser;
  /** A customer record nobody in this test owns: the admin variant finds it, the portal variant does not. */
  let strangerId: number;

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.createUser('table-admin', ['administrator']);
    customer = await app.createUser('table-customer', ['customer']);
    callers = Object.fromEntries(await Promise.all(ROLES.map(async (role) => [role, await app.createUser(`table-${role}`, [role])] as const)));
    const res = await app.as(admin).post(`${BASE}/customers`).send({ email: 'stranger@example.net', first_name: 'Stranger' });
    expect(res.status).toBe(200);
    strangerId = res.body.data.id;
    // The vendor-id routes answer 403 while the feature is off, whoever asks: on, a caller let through gets 404.
    app.host.hooks.addFilter('store/subscription/vendor_id_editing_enabled', () => true);
  });
  afterAll(() => app.close());

  /** A request that gets past the permission check: ids of nothing (or of the stranger), an empty body. */
  function ask(row: Row, user: TestUser): Promise<Response> {
    const path = row.path.replace(/:(\w+)/g, (_, name: string) => String(name === 'customerId' ? strangerId : MISSING_ID));
    const method = row.method.toLowerCase() as 'get' | 'post' | 'put' | 'delete' | 'patch';
    const test = app.as(user)[method](`${BASE}${path}`);
    return row.method === 'GET' ? test : test.send({});
  }

  it('covers every permission-named route of the store; a shared path falls back only to a logged-in-customer variant', () => {
    expect(ROWS.length).toBeGreaterThan(90);
    const fallbacks = ROWS.flatMap((row) => row.fallbacks);
    expect(fallbacks.length).toBeGreaterThan(0);
    expect(new Set(fallbacks)).toEqual(new Set(['authenticated']));
  });

  it.each(ROWS.map((row) => [title(row), row] as const))('%s', async (_, row) => {
    const asAdmin = await ask(row, admin);
    const asCustomer = await ask(row, customer);
    expect(verdict('administrator', asAdmin)).toMatchObject({ caller: 'administrator', refused: false });
    if (row.fallbacks.length) expect(answerOf(asCustomer)).not.toEqual(answerOf(asAdmin));
    else expect(verdict('customer', asCustomer)).toMatchObject({ caller: 'customer', status: 403, code: 'rest_forbidden' });

    for (const role of ROLES) {
      const res = await ask(row, callers[role]);
      const answer = verdict(role, res);
      if (!row.fallbacks.length) {
        expect(answer).toMatchObject(holds(role, row) ? { caller: role, refused: false } : { caller: role, status: 403, code: 'rest_forbidden' });
      } else {
        // The admin and portal variants answer in different envelopes, so the answer tells which one ran.
        expect({ caller: role, ...answerOf(res) }).toEqual({ caller: role, ...answerOf(holds(role, row) ? asAdmin : asCustomer) });
      }
    }
  });
});
