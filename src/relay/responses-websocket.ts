/**
 * `GET /v1/responses` upgraded to a WebSocket (issue 25; Codex's Responses WebSocket transport).
 * The upgrade is authenticated like the POST (its headers only, never the URL); each `response.create`
 * is then served by the inference pipeline as a POST of its body (admission, routing, billing per
 * response), its stream events sent as text frames in order, one response at a time on one socket.
 * `previous_response_id` naming the socket's last response continues it from the socket's memory
 * (Codex sends only the new items). A warm-up (`generate: false`) is answered here without a model
 * call or a charge. A revoked, rotated or deleted key closes the socket with an error event; so does
 * idleness after `RESPONSES_WS_IDLE_MS`.
 */
import { STATUS_CODES, type IncomingMessage, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { createClientIpResolver } from '../auth/client-ip';
import { extractCredential } from '../auth/extract-credential';
import type { AuthenticatedKey } from '../auth/authenticated-key';
import type { Dependencies } from '../dependencies';
import { GatewayError } from '../errors/gateway-error';
import { toGatewayError } from '../http/to-gateway-error';
import type { ErrorRenderers } from '../http/error-middleware';
import {
  completedResponse,
  errorEvent,
  inputItems,
  readClientMessage,
  turnHeaders,
  warmUpEvents,
  WEBSOCKET_UPGRADE_HINT,
} from '../protocols/responses/websocket-events';
import { CODECS } from './codec-registry';
import { createCodecContext } from './codec-context';
import type { InferenceHandler } from './inference-handler';
import type { RelayServices } from './relay-services';
import { WebSocketTurn } from './websocket-turn';

/** What the socket remembers of its last response: the whole input it answered and its output. */
interface LastResponse {
  id: string;
  input: unknown[];
  output: unknown[];
}

function isResponsesPath(url: string | undefined): boolean {
  const path = (url ?? '').split('?')[0]!.toLowerCase();
  return path === '/v1/responses' || path === '/v1/responses/';
}

function isWebSocketUpgrade(req: IncomingMessage): boolean {
  return (req.headers.upgrade ?? '').toLowerCase() === 'websocket';
}

/**
 * Serves the upgrades of `server`. Returns the stop of the app's shutdown: every open socket is
 * closed (1001) and a response still in flight ends as if its client had left.
 */
export function attachResponsesWebSocket(
  server: Server,
  deps: Dependencies,
  services: RelayServices,
  inference: InferenceHandler,
  renderers: ErrorRenderers,
): () => void {
  const sockets = new WebSocketServer({ noServer: true, maxPayload: deps.config.maxBodyBytes });
  const context = createCodecContext(deps.clock);

  /** An HTTP answer on the raw socket before the upgrade, in the Responses envelope. */
  const refuse = (socket: Duplex, error: GatewayError): void => {
    const rendered = (renderers.responses ?? (() => ({ status: error.status, body: { error: { message: error.message } } })))(error);
    const body = JSON.stringify(rendered.body);
    socket.end(
      `HTTP/1.1 ${rendered.status} ${STATUS_CODES[rendered.status] ?? ''}\r\ncontent-type: application/json; charset=utf-8\r\n` +
        `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
    );
  };

  const resolveIp = createClientIpResolver(deps.config.trustedProxies);
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    if (!isResponsesPath(req.url)) {
      refuse(socket, new GatewayError('not_found', `no WebSocket route for ${(req.url ?? '').split('?')[0]}`));
      return;
    }
    if (req.method !== 'GET' || !isWebSocketUpgrade(req)) {
      refuse(socket, new GatewayError('invalid_request', WEBSOCKET_UPGRADE_HINT, { status: 426 }));
      return;
    }
    const secret = extractCredential(CODECS.responses.inbound.credentials, req.headers, {});
    if (!secret) {
      refuse(socket, new GatewayError('authentication', 'missing API key: send Authorization: Bearer <key> with the upgrade request'));
      return;
    }
    const forwardedFor = req.headers['x-forwarded-for'];
    const callerIp = resolveIp(req.socket.remoteAddress, Array.isArray(forwardedFor) ? forwardedFor.join(',') : forwardedFor);
    services.authenticator.authenticate(secret, callerIp).then(
      (key) => {
        sockets.handleUpgrade(req, socket, head, (ws) => serveSocket(ws, req, key));
      },
      (error: unknown) => refuse(socket, toGatewayError(error)),
    );
  });

  function stop(): void {
    for (const ws of sockets.clients) ws.close(1001, 'server shutting down');
  }

  function serveSocket(ws: WebSocket, upgradeRequest: IncomingMessage, key: AuthenticatedKey): void {
    // What each response is served with: the upgrade's client and headers, less the socket's own.
    const upgrade = {
      headers: turnHeaders(upgradeRequest.headers),
      socket: upgradeRequest.socket,
      method: upgradeRequest.method,
      url: upgradeRequest.url,
    } as IncomingMessage;
    let last: LastResponse | undefined;
    let queue = Promise.resolve();
    let inFlight: WebSocketTurn | undefined;
    let idle: NodeJS.Timeout | undefined;

    const send = (text: string, done?: (error?: Error) => void): void => {
      if (ws.readyState !== ws.OPEN) {
        done?.(new Error('the WebSocket is closed'));
        return;
      }
      ws.send(text, done);
    };
    const closeWith = (status: number, error: Record<string, unknown>, code: number, reason: string): void => {
      send(errorEvent(status, { error }));
      ws.close(code, reason);
    };
    const armIdle = (): void => {
      clearTimeout(idle);
      if (ws.readyState !== ws.OPEN) return;
      idle = setTimeout(() => {
        if (inFlight) return armIdle();
        closeWith(
          408,
          {
            type: 'invalid_request_error',
            code: 'websocket_idle_timeout',
            message: `no message for ${deps.config.responsesWebSocketIdleMs} ms: the WebSocket is closed; open a new one`,
          },
          1000,
          'idle timeout',
        );
      }, deps.config.responsesWebSocketIdleMs).unref();
    };
    const unsubscribe = services.authenticator.onInvalidated(key.secretHmac, () => {
      inFlight?.destroy();
      closeWith(
        401,
        {
          type: 'authentication_error',
          code: 'invalid_api_key',
          message: 'the API key was revoked, rotated or deleted: the WebSocket is closed',
        },
        1008,
        'API key no longer valid',
      );
    });
    ws.on('close', () => {
      clearTimeout(idle);
      unsubscribe();
      inFlight?.destroy();
    });
    ws.on('error', () => ws.terminate());
    armIdle();

    const handle = async (text: string): Promise<void> => {
      const message = readClientMessage(text);
      if (message.kind === 'acknowledgement') return;
      if (message.kind === 'invalid') {
        send(errorEvent(400, { error: { type: 'invalid_request_error', code: 'invalid_message', message: message.message, param: null } }));
        return;
      }
      const { body } = message;
      if (last !== undefined && body.previous_response_id === last.id) {
        body.input = [...last.input, ...last.output, ...inputItems(body)];
        delete body.previous_response_id;
      }
      const input = inputItems(body);
      if (!message.generate) {
        const warmUp = warmUpEvents(body.model, context);
        for (const frame of warmUp.frames) send(frame);
        last = { id: warmUp.id, input, output: [] };
        return;
      }
      let completed: { id: string; output: unknown[] } | undefined;
      const turn = new WebSocketTurn(
        (frame, done) => send(frame, done),
        (frame) => {
          completed ??= completedResponse(frame);
        },
      );
      inFlight = turn;
      const ended = new Promise<void>((resolve) => turn.once('close', resolve));
      try {
        await inference.serveMessage(upgrade, turn.asResponse(), body);
        if (!turn.writableEnded) turn.end();
        await ended;
      } finally {
        inFlight = undefined;
      }
      if (completed) last = { id: completed.id, input, output: completed.output };
    };

    ws.on('message', (data: Buffer, isBinary: boolean) => {
      armIdle();
      if (isBinary) {
        send(
          errorEvent(400, {
            error: {
              type: 'invalid_request_error',
              code: 'invalid_message',
              message: 'binary frames are not read: send response.create as a JSON text frame',
              param: null,
            },
          }),
        );
        return;
      }
      const text = data.toString('utf8');
      queue = queue
        .then(() => handle(text))
        .catch((error: unknown) => {
          deps.logger.error({ err: error }, 'a Responses WebSocket message failed');
        })
        .finally(armIdle);
    });
  }
  return stop;
}
