/**
 * Repositories are the only SQL (STYLE.md rule 14, DESIGN.md section 2): every statement of the
 * product lives in `src/db/` (its repositories in `src/db/repositories/`, one per table family, the
 * ledger module among them, plus the pool, transactions, migrations and partitions). Anywhere else in
 * the product's code (src/, workers/, the admin and start scripts) a string that reads as SQL, or a
 * `.query(` given literal text, fails this test. Benchmarks, the provider simulator and tests are not
 * product code and may write SQL.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const ROOT = path.resolve(__dirname, '..', '..', '..');

/** Product code scanned, relative to the repository; `src/db/` is where SQL belongs. */
const SCANNED = ['src', 'workers', 'scripts'];
const EXEMPT = ['src/db/', 'scripts/bench/', 'scripts/provider-sim/', 'scripts/complete-lockfile'];

/** Statement openings, in the upper case this code base writes SQL in (prose such as "Select a model" does not match). */
const SQL = new RegExp(
  [
    String.raw`^\s*SELECT\s[\s\S]*\bFROM\s`,
    String.raw`^\s*SELECT\s+(?:1\b|pg_|now\(|count\(|set_config|nextval|ensure_|request_log_)`,
    String.raw`^\s*INSERT\s+INTO\s`,
    String.raw`^\s*UPDATE\s+\w+(?:\s+\w+)?\s+SET\s`,
    String.raw`^\s*DELETE\s+FROM\s`,
    String.raw`^\s*WITH\s+(?:RECURSIVE\s+)?\w+\s+AS\s*(?:MATERIALIZED\s*)?\(`,
    String.raw`^\s*(?:BEGIN|COMMIT|ROLLBACK)\b`,
    String.raw`^\s*(?:LOCK\s+TABLE|TRUNCATE)\s`,
    String.raw`^\s*(?:CREATE|ALTER|DROP)\s+(?:TABLE|INDEX|DATABASE|SCHEMA|FUNCTION|TRIGGER|ROLE)\b`,
  ].join('|'),
);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return name === 'node_modules' ? [] : sourceFiles(full);
    return /\.tsx?$/.test(name) ? [full] : [];
  });
}

function literalText(node: ts.Node): string | undefined {
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
  if (ts.isTemplateExpression(node)) return node.head.text + node.templateSpans.map((span) => ` x ${span.literal.text}`).join('');
  return undefined;
}

/** Each SQL-looking literal and each `.query(<literal>)` of a source text, with its line. */
export function sqlFindings(fileName: string, text: string): Array<{ line: number; text: string }> {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const found: Array<{ line: number; text: string }> = [];
  const note = (node: ts.Node, what: string) =>
    found.push({
      line: source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1,
      text: what.replace(/\s+/g, ' ').slice(0, 80),
    });
  const visit = (node: ts.Node) => {
    const literal = literalText(node);
    if (literal !== undefined && SQL.test(literal)) note(node, literal);
    else if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) && node.expression.name.text === 'query') {
      const first = node.arguments[0];
      const queryText = first && literalText(first);
      if (queryText !== undefined && !SQL.test(queryText)) note(node, `.query(${queryText})`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('SQL lives in repositories (src/db/) only', () => {
  it('finds no statement in product code outside src/db/', () => {
    const offenders: string[] = [];
    for (const top of SCANNED) {
      for (const file of sourceFiles(path.join(ROOT, top))) {
        const relative = path.relative(ROOT, file).split(path.sep).join('/');
        if (EXEMPT.some((prefix) => relative.startsWith(prefix))) continue;
        for (const finding of sqlFindings(relative, readFileSync(file, 'utf8')))
          offenders.push(`${relative}:${finding.line} ${finding.text}`);
      }
    }
    expect(offenders).toEqual([]);
  });

  it('recognizes statements, literal queries and prose apart', () => {
    const lines = (text: string) => sqlFindings('probe.ts', text).map((finding) => finding.line);
    expect(lines('const a = `SELECT id\n  FROM accounts WHERE id = $1`;')).toEqual([1]);
    expect(lines("db.query('UPDATE accounts SET tier = $2 WHERE id = $1', [1, 'pro']);")).toEqual([1]);
    expect(lines('const b = `INSERT INTO t (a) VALUES (${x})`;')).toEqual([1]);
    expect(lines("client.query('BEGIN');")).toEqual([1]);
    expect(lines("db.query('select 1');")).toEqual([1]);
    expect(lines('const c = `WITH moved AS (DELETE FROM t RETURNING *) SELECT count(*) FROM moved`;')).toEqual([1]);
    expect(lines("throw new Error('Select a model first; update the key settings');")).toEqual([]);
    expect(lines("redis.set('k', 'v'); logger.info('DELETE of a key'); const s = 'SELECT';")).toEqual([]);
  });
});
