import { transaction } from '../../src/core/context';
import { labelsFor, syncLabels } from '../../src/modules/labels/service';
import { BASE, startTestApp, type TestApp, type TestUser } from '../support/app';

describe('labels', () => {
  let app: TestApp;
  let admin: TestUser;
  let clerk: TestUser;
  let shopper: TestUser;

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.createUser('admin', ['administrator']);
    clerk = await app.createUser('clerk', ['customer_service']);
    shopper = await app.createUser('shopper');
  });
  afterAll(() => app.close());

  const create = (title: string, color?: string) =>
    app
      .as(admin)
      .post(`${BASE}/labels`)
      .send({ title, ...(color ? { color } : {}) });

  describe('POST /labels', () => {
    it('creates a label and fires store/label/created', async () => {
      const fired: string[] = [];
      const off = app.host.hooks.addAction('store/label/created', (label) => {
        fired.push(label.title);
      });
      const res = await create('VIP', '#ffcc00');
      off();
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        message: 'Label created successfully!',
        label: { id: expect.any(Number), title: 'VIP', color: '#ffcc00', created_at: '2026-11-21 10:00:00', updated_at: '2026-11-21 10:00:00' },
      });
      expect(fired).toEqual(['VIP']);
    });

    it.each([
      [{}, 'title', 'required'],
      [{ title: '' }, 'title', 'required'],
      [{ title: 'x'.repeat(101) }, 'title', 'max'],
      [{ title: 'Ok', color: 'javascript:alert(1)' }, 'color', 'regex'],
    ])('refuses %j: 422 naming %s', async (body, field, rule) => {
      const res = await app.as(admin).post(`${BASE}/labels`).send(body);
      expect(res.status).toBe(422);
      expect(res.body.errors[field]).toHaveProperty(rule);
    });

    it('titles are unique case-insensitively', async () => {
      await create('Wholesale').expect(200);
      const res = await create('wholesale');
      expect(res.status).toBe(422);
      expect(res.body.errors).toEqual({ title: { unique: 'The title has already been taken.' } });
    });

    it('needs labels/manage', async () => {
      expect((await app.http.post(`${BASE}/labels`).send({ title: 'A' })).status).toBe(401);
      expect((await app.as(clerk).post(`${BASE}/labels`).send({ title: 'A' })).status).toBe(403);
      expect((await app.as(shopper).post(`${BASE}/labels`).send({ title: 'A' })).status).toBe(403);
    });
  });

  describe('GET /labels', () => {
    it('pages and searches; titles with % match literally', async () => {
      await create('100% loyal').expect(200);
      await create('1000 orders').expect(200);
      const res = await app.as(clerk).get(`${BASE}/labels?search=${encodeURIComponent('100%')}`);
      expect(res.status).toBe(200);
      expect(res.body.labels.data.map((l: { title: string }) => l.title)).toEqual(['100% loyal']);
      const page = await app.as(clerk).get(`${BASE}/labels?per_page=2&sort_by=title&sort_type=asc`);
      expect(page.body.labels).toMatchObject({ current_page: 1, per_page: 2, total: 4, last_page: 2, from: 1, to: 2 });
      expect(page.body.labels.data.map((l: { title: string }) => l.title).sort()).toEqual(['100% loyal', '1000 orders']);
      const desc = await app.as(clerk).get(`${BASE}/labels?per_page=2&page=1&sort_by=title&sort_type=desc`);
      expect(desc.body.labels.data.map((l: { title: string }) => l.title)).toEqual(['Wholesale', 'VIP']);
    });

    it('needs labels/view', async () => {
      expect((await app.as(shopper).get(`${BASE}/labels`)).status).toBe(403);
    });
  });

  describe('GET, PUT, DELETE /labels/{id}', () => {
    it('reads, renames, deletes; 404 for a missing label', async () => {
      const { body } = await create('Temp');
      const id = body.label.id as number;
      expect((await app.as(admin).get(`${BASE}/labels/${id}`)).body.label.title).toBe('Temp');
      app.clock.advance(60_000);
      const renamed = await app.as(admin).put(`${BASE}/labels/${id}`).send({ title: 'Temporary' });
      expect(renamed.body).toMatchObject({ message: 'Label updated successfully!', label: { title: 'Temporary', updated_at: '2026-11-21 10:01:00' } });
      const deleted = await app.as(admin).delete(`${BASE}/labels/${id}`);
      expect(deleted.body).toEqual({ message: 'Label deleted successfully!' });
      const missing = await app.as(admin).get(`${BASE}/labels/${id}`);
      expect(missing.status).toBe(404);
      expect(missing.body).toEqual({ message: 'Label not found' });
      expect((await app.as(admin).put(`${BASE}/labels/${id}`).send({ title: 'X' })).status).toBe(404);
      expect((await app.as(admin).delete(`${BASE}/labels/${id}`)).status).toBe(404);
    });

    it('renaming onto another label title is a 422', async () => {
      const a = (await create('Alpha')).body.label.id;
      await create('Beta');
      const res = await app.as(admin).put(`${BASE}/labels/${a}`).send({ title: 'BETA' });
      expect(res.status).toBe(422);
    });
  });

  describe('label relations', () => {
    it('syncLabels replaces an object’s labels; labelsFor reads many at once; deleting a label detaches it', async () => {
      const ctx = app.ctx();
      const gold = (await create('Gold')).body.label.id as number;
      const silver = (await create('Silver')).body.label.id as number;
      await transaction(ctx, (trx) => syncLabels(trx, ctx, 'customer', 7, [gold, silver, gold]));
      await transaction(ctx, (trx) => syncLabels(trx, ctx, 'customer', 8, [silver]));
      let map = await labelsFor(app.host.db, 'customer', [7, 8, 9]);
      expect(map.get(7)!.map((l) => l.title)).toEqual(['Gold', 'Silver']);
      expect(map.get(8)!.map((l) => l.title)).toEqual(['Silver']);
      expect(map.get(9)).toEqual([]);

      await transaction(ctx, (trx) => syncLabels(trx, ctx, 'customer', 7, [silver]));
      map = await labelsFor(app.host.db, 'customer', [7]);
      expect(map.get(7)!.map((l) => l.title)).toEqual(['Silver']);

      await expect(transaction(ctx, (trx) => syncLabels(trx, ctx, 'customer', 7, [999999]))).rejects.toMatchObject({ status: 422 });
      await app.as(admin).delete(`${BASE}/labels/${silver}`).expect(200);
      expect((await labelsFor(app.host.db, 'customer', [7, 8])).get(8)).toEqual([]);
    });
  });
});
