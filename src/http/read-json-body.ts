/**
 * The inference routes' body reader: the bytes collected once and parsed once with `JSON.parse`,
 * with express.json's observable behaviour (size cap → 413, empty body → `{}`, a UTF-8 BOM ignored,
 * no body at all → undefined, bad JSON → 400). What only body-parser handles (a compressed body, a
 * charset other than UTF-8) is handed to it, so those requests keep their exact old treatment.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Request, RequestHandler, Response } from 'express';
import { GatewayError } from '../errors/gateway-error';
import { assertJsonDepth } from './assert-json-depth';
import { locals } from './request-context';

const CHARSET = /;\s*charset\s*=\s*"?([^";\s]*)/i;

/** A content type naming a charset other than UTF-8 (body-parser decodes or refuses those). */
function otherCharset(contentType: string): boolean {
  const match = CHARSET.exec(contentType);
  return match !== null && match[1].toLowerCase() !== 'utf-8';
}

function tooLarge(): GatewayError {
  return new GatewayError('request_too_large', 'request body too large');
}

/** Reads and drops the rest of a refused body, so the error answer is not cut short by unread bytes. */
function discard(req: IncomingMessage, then: () => void): void {
  if (req.complete) {
    then();
    return;
  }
  req.once('end', then);
  req.once('close', then);
  req.resume();
}

function parse(chunks: Buffer[], length: number, res: ServerResponse): unknown {
  let text = chunks.length === 1 ? chunks[0].toString('utf8') : Buffer.concat(chunks, length).toString('utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  locals(res).bodyText = text;
  // As body-parser: an empty body is a common client mistake and reads as an empty object.
  if (text.length === 0) return {};
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch {
    throw new GatewayError('invalid_request', 'request body is not valid JSON');
  }
  assertJsonDepth(value);
  return value;
}

export function readJsonBody(req: IncomingMessage, res: ServerResponse, maxBytes: number, fallback: RequestHandler): Promise<unknown> {
  const headers = req.headers;
  const encoding = headers['content-encoding'];
  const contentType = headers['content-type'];
  if ((encoding !== undefined && encoding.toLowerCase() !== 'identity') || (contentType !== undefined && otherCharset(contentType))) {
    return new Promise((resolve, reject) => {
      // body-parser only reads node's own request fields; it leaves the parsed value on `req.body`.
      fallback(req as Request, res as Response, (error?: unknown) => {
        if (error) reject(error);
        else resolve((req as { body?: unknown }).body);
      });
    });
  }
  const lengthHeader = headers['content-length'];
  // type-is's hasBody: a transfer encoding or a numeric content length (an empty string counts as 0).
  if (headers['transfer-encoding'] === undefined && Number.isNaN(Number(lengthHeader))) return Promise.resolve(undefined);
  const declared = lengthHeader === undefined ? undefined : Number(lengthHeader);
  return new Promise((resolve, reject) => {
    if (declared !== undefined && declared > maxBytes) {
      discard(req, () => reject(tooLarge()));
      return;
    }
    const chunks: Buffer[] = [];
    let received = 0;
    let settled = false;
    const finish = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('close', onClose);
      req.off('error', onError);
      outcome();
    };
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      if (received > maxBytes) {
        finish(() => discard(req, () => reject(tooLarge())));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () =>
      finish(() => {
        if (declared !== undefined && received !== declared) {
          reject(new GatewayError('invalid_request', 'malformed request body'));
          return;
        }
        try {
          resolve(parse(chunks, received, res));
        } catch (error) {
          reject(error);
        }
      });
    // The client went away before the whole body arrived.
    const onClose = () => finish(() => reject(new GatewayError('invalid_request', 'malformed request body')));
    const onError = () => finish(() => reject(new GatewayError('invalid_request', 'malformed request body')));
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('close', onClose);
    req.on('error', onError);
  });
}
