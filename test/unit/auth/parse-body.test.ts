import { z } from 'zod';
import { invalidRequestFrom, parseBody } from '../../../src/auth/parse-body';
import { GatewayError } from '../../../src/errors/gateway-error';

function rejection(schema: z.ZodType, body: unknown): GatewayError {
  try {
    parseBody(schema, body);
  } catch (error) {
    if (error instanceof GatewayError) return error;
    throw error;
  }
  throw new Error('expected a rejection');
}

const schema = z.object({
  ips: z.array(z.string()),
  source: z.union([z.string(), z.object({ data: z.string() })]).optional(),
  group: z.union([z.number().int(), z.string()], { error: 'a routing group id or name' }).optional(),
});

describe('parseBody and invalidRequestFrom: the zod 400 of the gateway own routes', () => {
  it('names the field with its index as param and in the message', () => {
    expect(rejection(schema, { ips: ['a', 2] })).toMatchObject({ kind: 'invalid_request', param: 'ips[1]' });
    expect(rejection(schema, { ips: ['a', 2] }).message).toMatch(/^ips\[1\]: /);
  });

  it('names the field inside a union branch that got deeper than the union', () => {
    expect(rejection(schema, { ips: [], source: { data: 5 } })).toMatchObject({ param: 'source.data' });
  });

  it("keeps the union's own message when no branch got deeper", () => {
    expect(rejection(schema, { ips: [], group: 1.5 })).toMatchObject({
      param: 'group',
      message: 'group: a routing group id or name',
    });
  });

  it('refuses a body that is not an object, and names the whole when no issue is given', () => {
    expect(rejection(schema, 'text').message).toBe('the request body must be a JSON object');
    expect(invalidRequestFrom(undefined, 'query')).toMatchObject({ param: 'query', message: 'query: invalid' });
  });
});
