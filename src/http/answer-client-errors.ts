/**
 * Requests whose head node cannot parse (a bare LF, NUL in a header, headers too large) never reach a
 * route: node answers them with a bare 400/431 and no body. This answers them in a JSON error
 * envelope instead, the protocol's own where the request line still names the route.
 */
import { STATUS_CODES, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { GatewayError } from '../errors/gateway-error';
import type { ErrorRenderers } from './error-middleware';
import { renderOpenAiStyleError } from '../protocols/shared/openai-error-envelope';
import type { Codec } from '../protocols/codec';
import type { ErrorSurface } from './request-context';

interface ClientError extends Error {
  code?: string;
  rawPacket?: Buffer;
}

export type SurfaceOfPath = (path: string) => ErrorSurface;

/** The envelope a path's errors are rendered in, when no route has set one: the protocol whose prefixes it starts with. */
export function createSurfaceOfPath(codecs: readonly Codec[]): SurfaceOfPath {
  const prefixes = codecs.flatMap((codec) =>
    codec.inbound.errorPathPrefixes.map((prefix) => ({ prefix: prefix.toLowerCase(), surface: codec.protocol })),
  );
  return (path) => {
    const lower = path.toLowerCase();
    return prefixes.find(({ prefix }) => lower.startsWith(prefix))?.surface ?? 'gateway';
  };
}

function errorFor(code: string | undefined): GatewayError {
  if (code === 'HPE_HEADER_OVERFLOW') return new GatewayError('request_too_large', 'request headers too large', { status: 431 });
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT')
    return new GatewayError('invalid_request', 'request headers not received in time', { status: 408 });
  return new GatewayError('invalid_request', 'malformed HTTP request');
}

function requestPath(rawPacket: Buffer | undefined): string {
  const line = rawPacket?.subarray(0, 2048).toString('latin1').split(/\r?\n/, 1)[0] ?? '';
  return line.split(' ')[1] ?? '';
}

export function answerClientErrors(server: Server, renderers: ErrorRenderers, surfaceOfPath: SurfaceOfPath): void {
  server.on('clientError', (error: ClientError, socket: Duplex) => {
    // A reset or a socket already answered: nothing can be written.
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const gatewayError = errorFor(error.code);
    const render = renderers[surfaceOfPath(requestPath(error.rawPacket))] ?? renderOpenAiStyleError;
    const rendered = render(gatewayError);
    const body = JSON.stringify(rendered.body);
    socket.end(
      [
        `HTTP/1.1 ${rendered.status} ${STATUS_CODES[rendered.status] ?? 'Bad Request'}`,
        'Content-Type: application/json',
        `Content-Length: ${Buffer.byteLength(body)}`,
        'Connection: close',
        '',
        body,
      ].join('\r\n'),
    );
  });
}
