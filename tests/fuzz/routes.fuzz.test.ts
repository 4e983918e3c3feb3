import { formatFindings, formatSummary, fuzzOptions, runFuzz } from './fuzz-run';
import { startFuzzStore, type FuzzStore } from './fuzz-store';

/**
 * The fuzzer (README "Fuzzing"): malformed requests to every route, derived from the schemas of its OpenAPI operation,
 * as the administrator, a customer (application password, and cookie with nonce) and an anonymous caller.
 */
describe('every route, under malformed requests', () => {
  const options = fuzzOptions();
  let store: FuzzStore;

  beforeAll(async () => {
    store = await startFuzzStore();
  }, 60_000);
  afterAll(() => store?.close());

  it('fuzzes every endpoint of the discovery index, the store routes with the schemas of their OpenAPI operations', () => {
    const undocumented = store.targets.filter((target) => !target.input).map((target) => `${target.method} /${target.namespace}${target.path}`);
    expect(undocumented).toEqual(expect.arrayContaining(['GET /host/v1/nonce', 'POST /host/v1/logout']));
    expect(undocumented.filter((route) => route.includes('/store/'))).toEqual([]);
    expect(store.targets.find((target) => target.method === 'POST' && target.path === '/orders')).toMatchObject({
      namespace: 'store/v2',
      aliases: ['store/v1'],
      input: { body: { required: expect.arrayContaining(['customer_id', 'order_items']) } },
      errors: { names: expect.arrayContaining(['MessageError', 'MessageValidationError']) },
    });
    expect(store.targets.find((target) => target.method === 'GET' && target.path === '/orders/:order_id')).toMatchObject({
      params: ['order_id'],
      input: { params: { properties: { order_id: { type: 'integer' } } } },
    });
  });

  it(
    `answers ${options.runs} malformed requests (seed ${options.seed}) without a 5xx, refusing each in its envelope, leaking nothing, and changing nothing when refusing`,
    async () => {
      const result = await runFuzz(store, options);
      process.stdout.write(`${formatSummary(result)}\n`);
      if (result.findings.length) throw new Error(formatFindings(result));
      // A replay (FUZZ_PATH) runs one case; a full run sends every request it was asked for.
      if (!options.path) expect(result.requests).toBeGreaterThanOrEqual(options.runs);
    },
    Math.max(180_000, options.runs * 200),
  );
});
