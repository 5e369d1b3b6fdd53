/**
 * Issue 24: wire knowledge lives in the codec of its protocol (STYLE.md rule 13), so adding a protocol
 * is one codec folder and one registry line. Outside src/protocols/ and the codec registry, no code
 * branches on a protocol's name: no comparison with a protocol name literal, no `case` of one, no map
 * keyed on (or onto) protocol names, no branch that yields one. The relay asks the codec instead
 * (docs/relay.md, "What a codec provides").
 *
 * The few places that still do are listed in ALLOWED with their reason and their count; the list may
 * only shrink (a stale entry fails too). `PROTOCOL_BRANCH_SCAN_ROOT=<other src/>` runs the scan on
 * another tree (how the test was checked against the tree before the codecs took this knowledge).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { PROTOCOLS } from '../../../src/ir/protocol';

const SRC = path.resolve(process.env.PROTOCOL_BRANCH_SCAN_ROOT ?? path.join(__dirname, '..', '..', '..', 'src'));

/** Where protocol names belong: the codecs, the registry, and the type that lists the names. */
const OWNERS = ['protocols/', 'relay/codec-registry.ts', 'ir/protocol.ts'];

/**
 * Known exceptions, file → number of branches, each with its reason. Shrink it; never grow it
 * without a reason a reviewer accepts.
 */
const ALLOWED: Record<string, { count: number; reason: string }> = {
  'limits/create-admission.ts': {
    count: 1,
    reason:
      'Messages clients get the anthropic-ratelimit-* headers besides the generic ones (limits/ may not import the codecs; to move with the admission rework)',
  },
  'upstream/provider-presets.ts': {
    count: 1,
    reason: 'the default provider preset of an account protocol (operator configuration, not wire)',
  },
  'images/generate-images.ts': {
    count: 4,
    reason: 'the image endpoints pick the image API of the account protocol (media endpoints, not the inference codecs)',
  },
  'tasks/video-operations.ts': { count: 1, reason: 'video tasks run on Generate-Content accounts only (media endpoints)' },
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return sourceFiles(full);
    return name.endsWith('.ts') || name.endsWith('.tsx') ? [full] : [];
  });
}

const NAMES = new Set<string>(PROTOCOLS);

function protocolLiteral(node: ts.Node | undefined): boolean {
  return node !== undefined && (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) && NAMES.has(node.text);
}

function propertyName(property: ts.ObjectLiteralElementLike): string | undefined {
  if (!ts.isPropertyAssignment(property) && !ts.isShorthandPropertyAssignment(property)) return undefined;
  const name = property.name;
  return ts.isIdentifier(name) || ts.isStringLiteral(name) ? name.text : undefined;
}

const EQUALITY = new Set([
  ts.SyntaxKind.EqualsEqualsEqualsToken,
  ts.SyntaxKind.ExclamationEqualsEqualsToken,
  ts.SyntaxKind.EqualsEqualsToken,
  ts.SyntaxKind.ExclamationEqualsToken,
]);

/** A catalog model's `kind` is `chat`, `image` or `video`: the same word, not a protocol. */
function isModelKind(node: ts.Expression): boolean {
  return ts.isPropertyAccessExpression(node) && node.name.text === 'kind';
}

/** What makes a node a protocol-specific branch, or undefined. */
function branchOf(node: ts.Node): string | undefined {
  if (ts.isBinaryExpression(node) && EQUALITY.has(node.operatorToken.kind)) {
    const [literal, other] = protocolLiteral(node.left) ? [node.left, node.right] : [node.right, node.left];
    if (protocolLiteral(literal) && !isModelKind(other)) return `comparison with '${(literal as ts.StringLiteral).text}'`;
  }
  if (ts.isCaseClause(node) && protocolLiteral(node.expression)) return `case '${(node.expression as ts.StringLiteral).text}'`;
  if (ts.isObjectLiteralExpression(node)) {
    if (node.properties.filter((property) => NAMES.has(propertyName(property) ?? '')).length >= 2) return 'map keyed on protocol names';
    if (node.properties.filter((property) => ts.isPropertyAssignment(property) && protocolLiteral(property.initializer)).length >= 2)
      return 'map onto protocol names';
  }
  if (ts.isReturnStatement(node) && protocolLiteral(node.expression)) return 'returns a protocol name';
  if (ts.isConditionalExpression(node) && (protocolLiteral(node.whenTrue) || protocolLiteral(node.whenFalse)))
    return 'conditional yielding a protocol name';
  return undefined;
}

/** The protocol-specific branches of one file's text: `name:line: what`. */
function branchesIn(name: string, text: string): string[] {
  const found: string[] = [];
  const source = ts.createSourceFile(name, text, ts.ScriptTarget.Latest, true);
  const visit = (node: ts.Node): void => {
    const branch = branchOf(node);
    if (branch) found.push(`${name}:${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1}: ${branch}`);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** Every protocol-specific branch outside the owners. */
function protocolBranches(): string[] {
  return sourceFiles(SRC).flatMap((file) => {
    const relative = path.relative(SRC, file).split(path.sep).join('/');
    if (OWNERS.some((owner) => relative === owner || (owner.endsWith('/') && relative.startsWith(owner)))) return [];
    return branchesIn(relative, readFileSync(file, 'utf8'));
  });
}

function countByFile(branches: string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const branch of branches) {
    const file = branch.slice(0, branch.indexOf(':'));
    counts[file] = (counts[file] ?? 0) + 1;
  }
  return counts;
}

describe('protocol names stay in the codecs', () => {
  const branches = protocolBranches();

  it('no protocol-specific branch outside src/protocols/ and the codec registry, beyond the listed exceptions', () => {
    const counts = countByFile(branches);
    const unexpected = branches.filter((branch) => {
      const file = branch.slice(0, branch.indexOf(':'));
      return counts[file] > (ALLOWED[file]?.count ?? 0);
    });
    expect(unexpected).toEqual([]);
  });

  it('the exception list is exact: an entry whose branches are gone is removed', () => {
    const counts = countByFile(branches);
    const stale = Object.entries(ALLOWED)
      .filter(([file, entry]) => (counts[file] ?? 0) < entry.count)
      .map(([file]) => file);
    expect(stale).toEqual([]);
  });

  it('the scan finds each shape of branch, and not a model kind named like a protocol', () => {
    const text = [
      "if (protocol === 'messages') a();",
      "const b = 'chat' !== account.protocol;",
      "switch (p) { case 'generate-content': break; }",
      "const names = { messages: 'M', responses: 'R' };",
      "const routes = { '/a': 'chat', '/b': 'responses' };",
      "function f(path: string) { if (path) return 'messages'; }",
      "const g = test(path) ? 'generate-content' : undefined;",
      "if (model.kind === 'chat') ok();",
      "const one = { protocol: 'chat' };",
    ].join('\n');
    expect(branchesIn('sample.ts', text)).toEqual([
      "sample.ts:1: comparison with 'messages'",
      "sample.ts:2: comparison with 'chat'",
      "sample.ts:3: case 'generate-content'",
      'sample.ts:4: map keyed on protocol names',
      'sample.ts:5: map onto protocol names',
      'sample.ts:6: returns a protocol name',
      'sample.ts:7: conditional yielding a protocol name',
    ]);
  });
});
