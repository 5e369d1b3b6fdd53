/**
 * Serves the built web console (`npm run build:console` → `console/dist`) under `/console`: hashed
 * assets with a year-long immutable cache, and `index.html` (the same for every console path, the
 * pages route on the hash) with `no-cache`, so a new build is picked up on the next load. No secret
 * or account data is ever in these files: the pages fetch everything from the management API.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import express, { type Router } from 'express';
import { GatewayError } from '../errors/gateway-error';

/** `console/dist` at the repository root, seen from `src/console` (tsx) or `dist/src/console` (the compiled build). */
export const CONSOLE_BUILD_DIR =
  [path.resolve(__dirname, '..', '..', 'console', 'dist'), path.resolve(__dirname, '..', '..', '..', 'console', 'dist')].find((directory) =>
    existsSync(path.join(directory, 'index.html')),
  ) ?? path.resolve(__dirname, '..', '..', 'console', 'dist');

const SECURITY_HEADERS: Record<string, string> = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  // Everything is served from here; images (task results, playground uploads) may be data: or pre-signed S3 URLs.
  'content-security-policy':
    "default-src 'self'; img-src 'self' data: blob: http: https:; media-src 'self' blob: http: https:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
};

export function createConsoleRouter(directory: string = CONSOLE_BUILD_DIR): Router {
  const router = express.Router();
  const indexPath = path.join(directory, 'index.html');

  // Every client error of the static server (a missing file, an encoded traversal, a directory)
  // falls through to one 404: never a 500, nothing logged, and nothing said about the file system.
  router.use(
    '/console/assets',
    express.static(path.join(directory, 'assets'), {
      immutable: true,
      maxAge: '365d',
      index: false,
      fallthrough: true,
      redirect: false,
    }),
  );
  router.use('/console/assets', (req) => {
    throw new GatewayError('not_found', `no console asset ${req.path.slice(0, 200)}`);
  });

  const page: express.RequestHandler = (_req, res) => {
    if (!existsSync(indexPath))
      throw new GatewayError('not_found', 'the console is not built: run npm run build:console (npm start builds it)');
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) res.setHeader(name, value);
    res.setHeader('cache-control', 'no-cache');
    res.type('html').send(readFileSync(indexPath, 'utf8'));
  };
  // `/console` also answers `/console/` (routing is not strict).
  router.get('/console', page);
  router.get('/console/*page', page);

  return router;
}
