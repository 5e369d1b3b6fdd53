import {
  isEmptyObjectSchema,
  sanitizeGenerateContentSchema,
} from '../../../../src/protocols/generate-content/sanitize-generate-content-schema';

describe('sanitizeGenerateContentSchema (JSON Schema → OpenAPI subset, PROTOCOLS.md §2.5)', () => {
  it.each([
    [
      'drops $schema, additionalProperties and propertyNames',
      {
        $schema: 'http://json-schema.org/draft-07/schema#',
        type: 'object',
        properties: { a: { type: 'string' } },
        additionalProperties: false,
        propertyNames: { pattern: 'x' },
      },
      { type: 'object', properties: { a: { type: 'string' } } },
    ],
    [
      'turns a type array into one type plus nullable',
      { type: ['string', 'null'], description: 'd' },
      { type: 'string', description: 'd', nullable: true },
    ],
    ['turns a multi-type array into anyOf', { type: ['string', 'integer'] }, { anyOf: [{ type: 'string' }, { type: 'integer' }] }],
    [
      'turns anyOf [X, null] into X plus nullable, keeping the outer description',
      { anyOf: [{ type: 'integer', minimum: 1 }, { type: 'null' }], description: 'count' },
      { type: 'integer', minimum: 1, description: 'count', nullable: true },
    ],
    ['turns oneOf into anyOf', { oneOf: [{ type: 'string' }, { type: 'number' }] }, { anyOf: [{ type: 'string' }, { type: 'number' }] }],
    ['turns const into a one-value enum', { const: 'fixed' }, { type: 'string', enum: ['fixed'] }],
    ['drops non-string enums', { type: 'integer', enum: [1, 2] }, { type: 'integer' }],
    [
      'inlines $ref from $defs and definitions',
      {
        type: 'object',
        properties: { a: { $ref: '#/$defs/A' }, b: { $ref: '#/definitions/B', description: 'b' } },
        $defs: { A: { type: 'string' } },
        definitions: { B: { type: 'number' } },
      },
      { type: 'object', properties: { a: { type: 'string' }, b: { type: 'number', description: 'b' } } },
    ],
    [
      'cuts a recursive $ref to an open object',
      { $ref: '#/$defs/node', $defs: { node: { type: 'object', properties: { child: { $ref: '#/$defs/node' } } } } },
      expect.objectContaining({ type: 'object' }),
    ],
    [
      'merges allOf members',
      {
        allOf: [
          { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] },
          { properties: { b: { type: 'number' } }, required: ['b'] },
        ],
      },
      { type: 'object', properties: { a: { type: 'string' }, b: { type: 'number' } }, required: ['a', 'b'] },
    ],
    [
      'keeps only formats the upstream accepts',
      {
        type: 'object',
        properties: {
          when: { type: 'string', format: 'date-time' },
          site: { type: 'string', format: 'uri' },
          n: { type: 'integer', format: 'int64' },
        },
      },
      {
        type: 'object',
        properties: { when: { type: 'string', format: 'date-time' }, site: { type: 'string' }, n: { type: 'integer', format: 'int64' } },
      },
    ],
    [
      'keeps the supported keywords and recurses into items',
      {
        type: 'array',
        items: { type: 'object', properties: { x: { type: 'number', maximum: 3, additionalProperties: true } } },
        minItems: 1,
        maxItems: 4,
        title: 't',
        example: [],
      },
      {
        type: 'array',
        items: { type: 'object', properties: { x: { type: 'number', maximum: 3 } } },
        minItems: 1,
        maxItems: 4,
        title: 't',
        example: [],
      },
    ],
    [
      'drops required names that are not properties',
      { type: 'object', properties: { a: { type: 'string' } }, required: ['a', 'ghost'] },
      { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] },
    ],
  ])('%s', (_name, input, expected) => {
    expect(sanitizeGenerateContentSchema(input)).toEqual(expected);
  });

  it.each([
    [{ type: 'object', properties: {} }, true],
    [{ type: 'object' }, true],
    [{}, true],
    [{ type: 'object', properties: { a: { type: 'string' } } }, false],
    [{ type: 'string' }, false],
  ])('isEmptyObjectSchema(%j) is %s', (schema, empty) => {
    expect(isEmptyObjectSchema(schema)).toBe(empty);
  });
});
