/** Minimal valid instances of JSON Schemas, used for tool arguments and structured output. */
import { schemaInstance } from '../../scripts/provider-sim/answer/schema-instance';

it.each<[string, unknown, unknown]>([
  ['a string', { type: 'string' }, 'example'],
  ['a string with a format', { type: 'string', format: 'date-time' }, '2026-01-01T00:00:00Z'],
  ['a string with a minimum length', { type: 'string', minLength: 10 }, 'examplexxx'],
  ['a string with a maximum length', { type: 'string', maxLength: 3 }, 'exa'],
  ['an integer with a minimum', { type: 'integer', minimum: 5 }, 5],
  ['a number with an exclusive maximum', { type: 'number', exclusiveMaximum: 0 }, -0.5],
  ['an integer multiple', { type: 'integer', minimum: 3, multipleOf: 5 }, 5],
  ['a boolean', { type: 'boolean' }, true],
  ['an enum', { enum: ['b', 'a'] }, 'b'],
  ['a const', { const: 42 }, 42],
  ['a nullable type array', { type: ['null', 'string'] }, 'example'],
  ['an anyOf with null first', { anyOf: [{ type: 'null' }, { type: 'integer' }] }, 1],
  ['an array with minItems', { type: 'array', items: { type: 'integer' }, minItems: 2 }, [1, 1]],
  [
    'an object with required properties only',
    { type: 'object', properties: { a: { type: 'string' }, b: { type: 'number' } }, required: ['b'] },
    { b: 1 },
  ],
  ['Gemini upper-case types', { type: 'OBJECT', properties: { n: { type: 'NUMBER' } }, required: ['n'] }, { n: 1 }],
  [
    'a local $ref',
    {
      type: 'object',
      properties: { p: { $ref: '#/$defs/point' } },
      required: ['p'],
      $defs: { point: { type: 'object', properties: { x: { type: 'integer' } }, required: ['x'] } },
    },
    { p: { x: 1 } },
  ],
  [
    'an allOf',
    {
      allOf: [
        { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] },
        { properties: { b: { type: 'boolean' } }, required: ['b'] },
      ],
    },
    { a: 'example', b: true },
  ],
])('%s', (_name, schema, expected) => {
  expect(schemaInstance(schema)).toEqual(expected);
});

it('stops on a recursive $ref', () => {
  const schema = { type: 'object', properties: { next: { $ref: '#' } }, required: ['next'] };
  expect(() => JSON.stringify(schemaInstance(schema))).not.toThrow();
});
