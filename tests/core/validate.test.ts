/**
 * Request validation (`src/core/validate.ts`) with TypeBox schemas.
 *
 * - `compileValidator({params, query, body})` compiles once and returns `validate(input)`, which returns the
 *   (coerced) input or throws `AppError('validation_error', 422)` with `details.errors`.
 * - Query strings and path parameters are text, so they are coerced ("5" → 5, `with=orders` → `['orders']`);
 *   JSON bodies are taken as sent ("5" for an integer is an error).
 * - Errors have the shape `{field: {rule: message}}`, one rule per field, nested fields joined with dots
 *   (`refund_info.amount`). Rules: required, email, max, min, integer, numeric, string, boolean, array, in, regex.
 * - A schema may carry `messages: {rule: text}` to replace the generated message.
 */
import { Type, type TSchema } from '@sinclair/typebox';
import { AppError } from '../../src/core/errors';
import { compileValidator, label, toFieldErrors, type RouteInput, type RouteSchemas } from '../../src/core/validate';

function input(part: Partial<RouteInput>): RouteInput {
  return { params: {}, query: {}, body: undefined, ...part };
}

/** Runs a validator and returns the thrown AppError (fails the test if nothing is thrown). */
function errorOf(schemas: RouteSchemas, request: Partial<RouteInput>): AppError {
  const validate = compileValidator(schemas);
  try {
    validate(input(request));
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('expected a validation error');
}

const bodyErrors = (body: TSchema, value: unknown) => errorOf({ body }, { body: value }).details.errors;

describe('query and path parameters are coerced', () => {
  const query = Type.Object({
    id: Type.Integer(),
    ratio: Type.Optional(Type.Number()),
    active: Type.Optional(Type.Boolean()),
    with: Type.Optional(Type.Array(Type.String())),
    ids: Type.Optional(Type.Array(Type.Integer())),
    search: Type.Optional(Type.String()),
  });
  const validate = compileValidator({ query });

  it.each<[string, Record<string, unknown>, Record<string, unknown>]>([
    ['"5" → 5 for an integer', { id: '5' }, { id: 5 }],
    ['"0.5" → 0.5 for a number', { id: '1', ratio: '0.5' }, { id: 1, ratio: 0.5 }],
    ['"true" → true for a boolean', { id: '1', active: 'true' }, { id: 1, active: true }],
    ['"false" → false for a boolean', { id: '1', active: 'false' }, { id: 1, active: false }],
    ['a single string → an array when the schema is an array (with=orders)', { id: '1', with: 'orders' }, { id: 1, with: ['orders'] }],
    ['an array stays an array (with[]=orders&with[]=labels)', { id: '1', with: ['orders', 'labels'] }, { id: 1, with: ['orders', 'labels'] }],
    ['array items are coerced too (ids[]=1&ids[]=2)', { id: '1', ids: ['1', '2'] }, { id: 1, ids: [1, 2] }],
    ['a single value → an array of one coerced item', { id: '1', ids: '7' }, { id: 1, ids: [7] }],
    ['a one-item array → its value for a scalar (id[]=5)', { id: ['5'] }, { id: 5 }],
    ['numbers stay text for a string', { id: '1', search: '123' }, { id: 1, search: '123' }],
  ])('%s', (_title, sent, coerced) => {
    expect(validate(input({ query: sent })).query).toEqual(coerced);
  });

  it('does not modify the caller’s query object', () => {
    const sent = { id: '5' };
    validate(input({ query: sent }));
    expect(sent).toEqual({ id: '5' });
  });

  it.each<[string, Record<string, unknown>, Record<string, Record<string, string>>]>([
    ['"abc" is not an integer', { id: 'abc' }, { id: { integer: 'The id field must be an integer.' } }],
    ['"5.5" is not an integer', { id: '5.5' }, { id: { integer: 'The id field must be an integer.' } }],
    ['"yes" is not a boolean', { id: '1', active: 'yes' }, { active: { boolean: 'The active field must be a boolean.' } }],
    ['"x" is not a number', { id: '1', ratio: 'x' }, { ratio: { numeric: 'The ratio field must be a number.' } }],
    ['a missing parameter', {}, { id: { required: 'The id field is required.' } }],
    [
      '"1e400" (Infinity) for an integer',
      { id: '1e400' },
      { id: { integer: 'The id field must be an integer between -9007199254740991 and 9007199254740991.' } },
    ],
    [
      '400 digits for an integer',
      { id: '9'.repeat(400) },
      { id: { integer: 'The id field must be an integer between -9007199254740991 and 9007199254740991.' } },
    ],
    ['2^53 for an integer', { id: '9007199254740992' }, { id: { integer: 'The id field must be an integer between -9007199254740991 and 9007199254740991.' } }],
    ['"-0" for an integer', { id: '-0' }, { id: { integer: 'The id field must not be -0.' } }],
    [
      '"Infinity" for a number',
      { id: '1', ratio: 'Infinity' },
      { ratio: { numeric: 'The ratio field must be a number between -9007199254740991 and 9007199254740991.' } },
    ],
    ['"NaN" for a number', { id: '1', ratio: 'NaN' }, { ratio: { numeric: 'The ratio field must be a number.' } }],
    [
      '"1e400" in an array of integers',
      { id: '1', ids: ['1', '1e400'] },
      { 'ids.1': { integer: 'The ids field must be an integer between -9007199254740991 and 9007199254740991.' } },
    ],
  ])('%s', (_title, sent, errors) => {
    expect(errorOf({ query }, { query: sent }).details.errors).toEqual(errors);
  });

  it('the largest exact integers pass', () => {
    expect(validate(input({ query: { id: '-9007199254740991', ids: ['9007199254740991'] } })).query).toEqual({
      id: -9007199254740991,
      ids: [9007199254740991],
    });
  });

  it('coerces path parameters', () => {
    const params = Type.Object({ customerId: Type.Integer({ minimum: 1 }) });
    expect(compileValidator({ params })(input({ params: { customerId: '42' } })).params).toEqual({ customerId: 42 });
    expect(errorOf({ params }, { params: { customerId: '0' } }).details.errors).toEqual({ customerId: { min: 'The customerId field must be at least 1.' } });
  });

  it('fills defaults', () => {
    const withDefaults = Type.Object({ per_page: Type.Integer({ default: 10 }), sort_type: Type.String({ default: 'desc' }) });
    expect(compileValidator({ query: withDefaults })(input({ query: {} })).query).toEqual({ per_page: 10, sort_type: 'desc' });
  });
});

describe('bodies are not coerced', () => {
  const body = Type.Object({ quantity: Type.Integer(), agree: Type.Optional(Type.Boolean()), tags: Type.Optional(Type.Array(Type.String())) });

  it.each<[string, unknown, Record<string, Record<string, string>>]>([
    ['"5" for an integer', { quantity: '5' }, { quantity: { integer: 'The quantity field must be an integer.' } }],
    ['"true" for a boolean', { quantity: 1, agree: 'true' }, { agree: { boolean: 'The agree field must be a boolean.' } }],
    ['a string for an array', { quantity: 1, tags: 'vip' }, { tags: { array: 'The tags field must be an array.' } }],
    ['5.5 for an integer', { quantity: 5.5 }, { quantity: { integer: 'The quantity field must be an integer.' } }],
    ['null for an integer', { quantity: null }, { quantity: { integer: 'The quantity field must be an integer.' } }],
    [
      '1e400 (Infinity) for an integer',
      JSON.parse('{"quantity":1e400}'),
      { quantity: { integer: 'The quantity field must be an integer between -9007199254740991 and 9007199254740991.' } },
    ],
    [
      '1e300 for an integer',
      { quantity: 1e300 },
      { quantity: { integer: 'The quantity field must be an integer between -9007199254740991 and 9007199254740991.' } },
    ],
    ['-0 for an integer', { quantity: -0 }, { quantity: { integer: 'The quantity field must not be -0.' } }],
  ])('%s is an error', (_title, sent, errors) => {
    expect(bodyErrors(body, sent)).toEqual(errors);
  });

  it('a valid body is returned as sent', () => {
    const sent = { quantity: 5, agree: true, tags: ['a'] };
    expect(compileValidator({ body })(input({ body: sent })).body).toEqual(sent);
  });

  it('a missing body is validated as {} (so required fields are named)', () => {
    expect(bodyErrors(body, undefined)).toEqual({ quantity: { required: 'The quantity field is required.' } });
  });

  it.each<[string, unknown]>([
    ['null', null],
    ['an array', [1, 2]],
    ['a string', 'quantity=5'],
  ])('a body that is %s is reported on the field "body"', (_title, sent) => {
    expect(bodyErrors(body, sent)).toEqual({ body: { array: 'The body field must be an array.' } });
  });
});

describe('error rules and messages', () => {
  const body = Type.Object({
    email: Type.String({ format: 'email', maxLength: 255 }),
    name: Type.String({ minLength: 1, maxLength: 10 }),
    label: Type.Optional(Type.String({ maxLength: 15 })),
    password: Type.Optional(Type.String({ minLength: 8 })),
    quantity: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
    price: Type.Optional(Type.Number()),
    type: Type.Optional(Type.Union([Type.Literal('billing'), Type.Literal('shipping')])),
    status: Type.Optional(Type.String({ enum: ['active', 'inactive'] })),
    country: Type.Optional(Type.String({ pattern: '^[A-Z]{2}$' })),
    tags: Type.Optional(Type.Array(Type.String(), { minItems: 1, maxItems: 2 })),
    website: Type.Optional(Type.String({ format: 'uri' })),
    birthday: Type.Optional(Type.String({ format: 'date' })),
  });
  const valid = { email: 'ann@example.com', name: 'Ann' };

  it.each<[string, Record<string, unknown>, string, Record<string, string>]>([
    ['a missing field', { name: undefined }, 'name', { required: 'The name field is required.' }],
    ['an empty string where one character is needed', { name: '' }, 'name', { required: 'The name field is required.' }],
    ['an invalid email', { email: 'not-an-email' }, 'email', { email: 'The email field must be a valid email address.' }],
    ['a string too long', { name: 'Bartholomew Jr' }, 'name', { max: 'The name field must not be greater than 10 characters.' }],
    ['a string too short', { password: 'short' }, 'password', { min: 'The password field must be at least 8 characters.' }],
    ['a number too small', { quantity: 0 }, 'quantity', { min: 'The quantity field must be at least 1.' }],
    ['a number too large', { quantity: 101 }, 'quantity', { max: 'The quantity field must not be greater than 100.' }],
    ['not an integer', { quantity: 1.5 }, 'quantity', { integer: 'The quantity field must be an integer.' }],
    ['not a number', { price: 'free' }, 'price', { numeric: 'The price field must be a number.' }],
    ['not a string', { name: 42 }, 'name', { string: 'The name field must be a string.' }],
    ['not one of the literals', { type: 'pickup' }, 'type', { in: 'The selected type is invalid.' }],
    ['not in the enum', { status: 'archived' }, 'status', { in: 'The selected status is invalid.' }],
    ['not matching the pattern', { country: 'usa' }, 'country', { regex: 'The country field format is invalid.' }],
    ['too few items', { tags: [] }, 'tags', { min: 'The tags field must have at least 1 items.' }],
    ['too many items', { tags: ['a', 'b', 'c'] }, 'tags', { max: 'The tags field must not have more than 2 items.' }],
    ['not an array', { tags: 'a' }, 'tags', { array: 'The tags field must be an array.' }],
    ['an invalid uri', { website: 'not a url' }, 'website', { uri: 'The website field must be a valid uri.' }],
    ['an invalid date', { birthday: '2024-02-30' }, 'birthday', { date: 'The birthday field must be a valid date.' }],
  ])('%s', (_title, patch, field, error) => {
    const errors = bodyErrors(body, { ...valid, ...patch })!;
    expect(errors[field]).toEqual(error);
    expect(Object.keys(errors)).toEqual([field]);
  });

  it('reports every failing field, one rule each', () => {
    expect(bodyErrors(body, { email: 'x', name: 'far too long a name', quantity: 0 })).toEqual({
      email: { email: 'The email field must be a valid email address.' },
      name: { max: 'The name field must not be greater than 10 characters.' },
      quantity: { min: 'The quantity field must be at least 1.' },
    });
  });

  it('keeps only the first rule of a field that breaks several', () => {
    const strict = Type.Object({ code: Type.String({ minLength: 5, pattern: '^[A-Z]+$' }) });
    expect(bodyErrors(strict, { code: 'ab' })).toEqual({ code: { min: 'The code field must be at least 5 characters.' } });
  });

  it('labels use the last path segment with underscores as spaces', () => {
    expect(bodyErrors(Type.Object({ first_name: Type.String() }), {})).toEqual({ first_name: { required: 'The first name field is required.' } });
    expect(label('refund_info.transaction_id')).toBe('transaction id');
    expect(label('order_items.0.quantity')).toBe('quantity');
    expect(label('email')).toBe('email');
  });
});

describe('nested fields are named with dots', () => {
  const body = Type.Object({
    refund_info: Type.Object({
      transaction_id: Type.Integer(),
      amount: Type.String({ pattern: '^\\d+(\\.\\d{1,2})?$' }),
    }),
    order_items: Type.Optional(Type.Array(Type.Object({ id: Type.Integer(), quantity: Type.Integer({ minimum: 1 }) }))),
  });

  it.each<[string, unknown, Record<string, Record<string, string>>]>([
    ['a missing nested object', {}, { refund_info: { required: 'The refund info field is required.' } }],
    [
      'missing nested fields',
      { refund_info: {} },
      {
        'refund_info.transaction_id': { required: 'The transaction id field is required.' },
        'refund_info.amount': { required: 'The amount field is required.' },
      },
    ],
    [
      'a wrong nested type',
      { refund_info: { transaction_id: '7', amount: '1.00' } },
      { 'refund_info.transaction_id': { integer: 'The transaction id field must be an integer.' } },
    ],
    ['a nested pattern', { refund_info: { transaction_id: 7, amount: '1.001' } }, { 'refund_info.amount': { regex: 'The amount field format is invalid.' } }],
    [
      'array items by index',
      {
        refund_info: { transaction_id: 7, amount: '1' },
        order_items: [
          { id: 1, quantity: 1 },
          { id: 2, quantity: 0 },
        ],
      },
      { 'order_items.1.quantity': { min: 'The quantity field must be at least 1.' } },
    ],
  ])('%s', (_title, sent, errors) => {
    expect(bodyErrors(body, sent)).toEqual(errors);
  });
});

describe('custom messages with the `messages` keyword', () => {
  const refund = Type.Object({
    refund_info: Type.Object({
      transaction_id: Type.Integer({ messages: { required: 'Transaction ID is required', integer: 'Transaction ID must be a number' } }),
      amount: Type.String({ minLength: 1, messages: { required: 'Refund amount is required' } }),
    }),
  });

  it.each<[string, unknown, Record<string, Record<string, string>>]>([
    [
      'required (the spec’s refund messages)',
      { refund_info: {} },
      { 'refund_info.transaction_id': { required: 'Transaction ID is required' }, 'refund_info.amount': { required: 'Refund amount is required' } },
    ],
    [
      'an empty string counts as required',
      { refund_info: { transaction_id: 1, amount: '' } },
      { 'refund_info.amount': { required: 'Refund amount is required' } },
    ],
    [
      'another rule of the same field',
      { refund_info: { transaction_id: 'x', amount: '1' } },
      { 'refund_info.transaction_id': { integer: 'Transaction ID must be a number' } },
    ],
  ])('%s', (_title, sent, errors) => {
    expect(bodyErrors(refund, sent)).toEqual(errors);
  });

  it('the thrown message is the first field’s message', () => {
    expect(errorOf({ body: refund }, { body: { refund_info: {} } }).message).toBe('Transaction ID is required');
  });

  it('a rule without a custom message keeps the generated one', () => {
    const schema = Type.Object({ email: Type.String({ format: 'email', messages: { required: 'We need your email' } }) });
    expect(bodyErrors(schema, { email: 'x' })).toEqual({ email: { email: 'The email field must be a valid email address.' } });
    expect(bodyErrors(schema, {})).toEqual({ email: { required: 'We need your email' } });
  });

  it('messages on a union of literals apply to `in`', () => {
    const schema = Type.Object({ type: Type.Union([Type.Literal('billing'), Type.Literal('shipping')], { messages: { in: 'Choose billing or shipping.' } }) });
    expect(bodyErrors(schema, { type: 'pickup' })).toEqual({ type: { in: 'Choose billing or shipping.' } });
  });

  it('messages work on query parameters too', () => {
    const query = Type.Object({ method: Type.String({ messages: { required: 'A payment method is required.' } }) });
    expect(errorOf({ query }, { query: {} }).details.errors).toEqual({ method: { required: 'A payment method is required.' } });
  });
});

describe('the thrown error', () => {
  const schemas: RouteSchemas = {
    params: Type.Object({ id: Type.Integer() }),
    query: Type.Object({ page: Type.Optional(Type.Integer()) }),
    body: Type.Object({ email: Type.String({ format: 'email' }) }),
  };

  it('is an AppError with status 422 and code validation_error', () => {
    const error = errorOf(schemas, { params: { id: '1' }, body: { email: 'x' } });
    expect(error).toBeInstanceOf(AppError);
    expect(error).toBeInstanceOf(Error);
    expect(error.status).toBe(422);
    expect(error.code).toBe('validation_error');
    expect(error.message).toBe('The email field must be a valid email address.');
    expect(error.details.errors).toEqual({ email: { email: 'The email field must be a valid email address.' } });
  });

  it('collects the errors of params, query and body together', () => {
    const error = errorOf(schemas, { params: { id: 'x' }, query: { page: 'y' }, body: {} });
    expect(error.details.errors).toEqual({
      id: { integer: 'The id field must be an integer.' },
      page: { integer: 'The page field must be an integer.' },
      email: { required: 'The email field is required.' },
    });
  });

  it('nothing is thrown for valid input, and the parts are returned', () => {
    const validate = compileValidator(schemas);
    expect(validate(input({ params: { id: '3' }, query: { page: '2' }, body: { email: 'a@b.co' } }))).toEqual({
      params: { id: 3 },
      query: { page: 2 },
      body: { email: 'a@b.co' },
    });
  });

  it('a route without schemas passes everything through', () => {
    const request = input({ params: { a: '1' }, query: { b: '2' }, body: { c: 3 } });
    expect(compileValidator({})(request)).toEqual(request);
  });
});

describe('toFieldErrors', () => {
  it('prefixes field names', () => {
    expect(
      toFieldErrors([{ keyword: 'type', instancePath: '/amount', schemaPath: '#/properties/amount/type', params: { type: 'integer' } }], 'refund_info'),
    ).toEqual({ 'refund_info.amount': { integer: 'The amount field must be an integer.' } });
  });

  it('returns {} for no errors', () => {
    expect(toFieldErrors([])).toEqual({});
  });
});
