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
import { renderOpenAiStyleError } from '../protocols/shared/openai-error-envelope';
import {
  completedResponse,
  errorEvent,
  inputItems,
  readClientMessage,
  turnHeaders,
  warmUpEvents,
  WEBSOCKET_UPGRADE_HINT,
} from '../protocols/responses/websocket-events';
import type { CodecContext } from '../protocols/codec';
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

/** What every socket of one server is served with. */
interface SocketScope {
  deps: Dependencies;
  services: RelayServices;
  inference: InferenceHandler;
  context: CodecContext;
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
  const scope: SocketScope = { deps, services, inference, context: createCodecContext(deps.clock) };
  const resolveIp = createClientIpResolver(deps.config.trustedProxies);
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    const credential = upgradeCredential(req);
    if (credential instanceof GatewayError) {
      refuse(socket, credential, renderers);
      return;
    }
    const forwardedFor = req.headers['x-forwarded-for'];
    const callerIp = resolveIp(req.socket.remoteAddress, Array.isArray(forwardedFor) ? forwardedFor.join(',') : forwardedFor);
    services.authenticator.authenticate(credential, callerIp).then(
      (key) => {
        sockets.handleUpgrade(req, socket, head, (ws) => new ResponsesSocket(ws, req, key, scope));
      },
      (error: unknown) => refuse(socket, toGatewayError(error), renderers),
    );
  });

  function stop(): void {
    for (const ws of sockets.clients) ws.close(1001, 'server shutting down');
  }
  return stop;
}

/** The upgrade's API key, or why it is refused before any authentication. */
function upgradeCredential(req: IncomingMessage): string | GatewayError {
  if (!isResponsesPath(req.url)) return new GatewayError('not_found', `no WebSocket route for ${(req.url ?? '').split('?')[0]}`);
  if (req.method !== 'GET' || !isWebSocketUpgrade(req)) return new GatewayError('invalid_request', WEBSOCKET_UPGRADE_HINT, { status: 426 });
  const secret = extractCredential(CODECS.responses.inbound.credentials, req.headers, {});
  return secret || new GatewayError('authentication', 'missing API key: send Authorization: Bearer <key> with the upgrade request');
}

/** An HTTP answer on the raw socket before the upgrade, in the Responses envelope. */
function refuse(socket: Duplex, error: GatewayError, renderers: ErrorRenderers): void {
  const rendered = (renderers.responses ?? renderOpenAiStyleError)(error);
  const body = JSON.stringify(rendered.body);
  socket.end(
    `HTTP/1.1 ${rendered.status} ${STATUS_CODES[rendered.status] ?? ''}\r\ncontent-type: application/json; charset=utf-8\r\n` +
      `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}

/** One upgraded socket: its messages served one at a time, closed when idle or when its key stops being valid. */
class ResponsesSocket {
  // What each response is served with: the upgrade's client and headers, less the socket's own.
  private readonly upgrade: IncomingMessage;
  private last: LastResponse | undefined;
  private queue = Promise.resolve();
  private inFlight: WebSocketTurn | undefined;
  private idle: NodeJS.Timeout | undefined;
  private readonly unsubscribe: () => void;

  constructor(
    private readonly ws: WebSocket,
    upgradeRequest: IncomingMessage,
    key: AuthenticatedKey,
    private readonly scope: SocketScope,
  ) {
    this.upgrade = {
      headers: turnHeaders(upgradeRequest.headers),
      socket: upgradeRequest.socket,
      method: upgradeRequest.method,
      url: upgradeRequest.url,
    } as IncomingMessage;
    this.unsubscribe = scope.services.authenticator.onInvalidated(key.secretHmac, this.onKeyInvalidated);
    ws.on('close', this.onClose);
    ws.on('error', () => ws.terminate());
    this.armIdle();
    ws.on('message', this.onMessage);
  }

  private readonly send = (text: string, done?: (error?: Error) => void): void => {
    if (this.ws.readyState !== this.ws.OPEN) {
      done?.(new Error('the WebSocket is closed'));
      return;
    }
    this.ws.send(text, done);
  };

  private closeWith(status: number, error: Record<string, unknown>, code: number, reason: string): void {
    this.send(errorEvent(status, { error }));
    this.ws.close(code, reason);
  }

  private readonly armIdle = (): void => {
    clearTimeout(this.idle);
    if (this.ws.readyState !== this.ws.OPEN) return;
    this.idle = setTimeout(this.onIdle, this.scope.deps.config.responsesWebSocketIdleMs).unref();
  };

  private readonly onIdle = (): void => {
    if (this.inFlight) return this.armIdle();
    this.closeWith(
      408,
      {
        type: 'invalid_request_error',
        code: 'websocket_idle_timeout',
        message: `no message for ${this.scope.deps.config.responsesWebSocketIdleMs} ms: the WebSocket is closed; open a new one`,
      },
      1000,
      'idle timeout',
    );
  };

  private readonly onKeyInvalidated = (): void => {
    this.inFlight?.destroy();
    this.closeWith(
      401,
      {
        type: 'authentication_error',
        code: 'invalid_api_key',
        message: 'the API key was revoked, rotated or deleted: the WebSocket is closed',
      },
      1008,
      'API key no longer valid',
    );
  };

  private readonly onClose = (): void => {
    clearTimeout(this.idle);
    this.unsubscribe();
    this.inFlight?.destroy();
  };

  private readonly onMessage = (data: Buffer, isBinary: boolean): void => {
    this.armIdle();
    if (isBinary) {
      this.sendInvalidMessage('binary frames are not read: send response.create as a JSON text frame');
      return;
    }
    const text = data.toString('utf8');
    this.queue = this.queue
      .then(() => this.handle(text))
      .catch((error: unknown) => {
        this.scope.deps.logger.error({ err: error }, 'a Responses WebSocket message failed');
      })
      .finally(this.armIdle);
  };

  /** A frame that is not a readable client message: the socket stays open for the next one. */
  private sendInvalidMessage(message: string): void {
    this.send(errorEvent(400, { error: { type: 'invalid_request_error', code: 'invalid_message', message, param: null } }));
  }

  private async handle(text: string): Promise<void> {
    const message = readClientMessage(text);
    if (message.kind === 'acknowledgement') return;
    if (message.kind === 'invalid') {
      this.sendInvalidMessage(message.message);
      return;
    }
    const { body } = message;
    const { last } = this;
    if (last !== undefined && body.previous_response_id === last.id) {
      body.input = [...last.input, ...last.output, ...inputItems(body)];
      delete body.previous_response_id;
    }
    const input = inputItems(body);
    if (!message.generate) {
      const warmUp = warmUpEvents(body.model, this.scope.context);
      for (const frame of warmUp.frames) this.send(frame);
      this.last = { id: warmUp.id, input, output: [] };
      return;
    }
    const completed = await this.serveTurn(body);
    if (completed) this.last = { id: completed.id, input, output: completed.output };
  }

  /** One response served by the inference pipeline, its events sent as frames; its completion when it completed. */
  private async serveTurn(body: Record<string, unknown>): Promise<{ id: string; output: unknown[] } | undefined> {
    let completed: { id: string; output: unknown[] } | undefined;
    const turn = new WebSocketTurn(
      (frame, done) => this.send(frame, done),
      (frame) => {
        completed ??= completedResponse(frame);
      },
    );
    this.inFlight = turn;
    const ended = new Promise<void>((resolve) => turn.once('close', resolve));
    try {
      await this.scope.inference.serveMessage(this.upgrade, turn.asResponse(), body);
      if (!turn.writableEnded) turn.end();
      await ended;
    } finally {
      this.inFlight = undefined;
    }
    return completed;
  }
}
