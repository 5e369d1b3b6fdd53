/**
 * Issue 21 finding 9, the safety net: an identifier with U+0000 that no check stopped reaches
 * PostgreSQL, which refuses it; that refusal is the caller's 400, never a 500.
 */
import { toGatewayError } from '../../../src/http/to-gateway-error';
import { createTestDependencies, type TestDependencies } from '../../support/dependencies';

describe('issue 21 finding 9: PostgreSQL refusing U+0000 in a looked-up identifier', () => {
  let deps: TestDependencies;
  beforeAll(async () => {
    deps = await createTestDependencies();
  });
  afterAll(async () => {
    await deps.close();
  });

  it.each([
    ['a text parameter', 'SELECT id FROM api_keys WHERE name = $1', 'key\u0000'],
    ['a jsonb parameter', 'SELECT $1::jsonb', '{"id":"\\u0000"}'],
  ])('%s becomes a 400 invalid_request', async (_label, sql, value) => {
    const thrown = await deps.db.query(sql, [value]).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(thrown).toBeDefined();
    expect(toGatewayError(thrown)).toMatchObject({ kind: 'invalid_request', status: 400 });
  });

  it('other database errors stay 500s', async () => {
    const thrown = await deps.db.query('SELECT * FROM no_such_table').then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(toGatewayError(thrown)).toMatchObject({ kind: 'internal', status: 500 });
  });
});
