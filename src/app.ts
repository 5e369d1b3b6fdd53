/**
 * Builds the Express app from injected dependencies and services. Inference calls never enter
 * express: the server's request listener hands them to the inference handler first (DESIGN 10), and
 * everything else to express. Every error is rendered in the envelope of the route's protocol.
 */
import type { IncomingMessage, RequestListener, Server, ServerResponse } from 'node:http';
import express, { type Express } from 'express';
import { createAuthRouter } from './auth/auth-router';
import { createManagementAuth } from './auth/management-auth';
import { createAccountRouter } from './account/account-router';
import { createAlertsRouter } from './alerts/alerts-router';
import { createConsoleRouter } from './console/console-static';
import { createModelsRouter } from './catalog/models-router';
import { createCountTokensRouter } from './count-tokens/count-tokens-router';
import type { Dependencies } from './dependencies';
import { GatewayError } from './errors/gateway-error';
import { accessLog } from './http/access-log';
import { corsMiddleware } from './http/cors';
import { answerClientErrors, surfaceOfPath } from './http/answer-client-errors';
import { createErrorMiddleware, type ErrorRenderers } from './http/error-middleware';
import { createHealthRouter } from './http/health-router';
import { jsonBody } from './http/json-body';
import { locals } from './http/request-context';
import { requestIdMiddleware } from './http/request-id';
import { createImagesRouter } from './images/images-router';
import { PROTOCOLS } from './ir/protocol';
import { createKeysRouter } from './keys/keys-router';
import { createOpenApiRouter } from './openapi/openapi-router';
import { createOperatorRouter } from './operator/operator-router';
import { CODECS } from './relay/codec-registry';
import { createDialTestRouter } from './relay/dial-test-router';
import { createInferenceHandler } from './relay/inference-handler';
import { attachResponsesWebSocket } from './relay/responses-websocket';
import { WEBSOCKET_UPGRADE_HINT } from './protocols/responses/websocket-events';
import type { Services } from './services';
import { createRequestsRouter } from './requests/requests-router';
import { createRoutingDecisionsRouter } from './routing/routing-decisions-router';
import { createTasksRouter } from './tasks/tasks-router';
import { createTracer } from './http/request-trace';
import { createTraceRouter } from './http/trace-router';

/**
 * The Express app plus what must be closed with it (subscriptions held by routers). `listen` and
 * `requestListener` serve inference calls before express sees them; the app called as a plain
 * handler serves them too, only slower (through express's own request set-up).
 */
export type GatewayApp = Express & {
  closeRoutes(): Promise<void>;
  requestListener: RequestListener;
};

export function createApp(deps: Dependencies, services: Services): GatewayApp {
  const app = express() as GatewayApp;
  app.disable('x-powered-by');
  app.disable('etag');
  app.set('trust proxy', false);

  const renderers: ErrorRenderers = {};
  for (const protocol of PROTOCOLS) renderers[protocol] = (error) => CODECS[protocol].inbound.encodeError(error);
  const tracer = createTracer(deps.config.traceSample); // issue 24: undefined unless GATEWAY_TRACE_SAMPLE > 0
  const inference = createInferenceHandler(deps, services, renderers, tracer, services.requestLog);

  app.use(corsMiddleware(deps.config.corsAllowedOrigins));
  app.use(createHealthRouter(deps));
  app.use(createOpenApiRouter('0.1.0'));
  if (tracer) app.use(createTraceRouter(tracer));
  // Only reached when the app is used as a plain handler; the inference handler does its own request id and log.
  app.use((req, res, next) => {
    if (!inference.handle(req, res)) next();
  });
  app.use(requestIdMiddleware());
  app.use(accessLog(deps.logger, deps.metrics, services.requestLog));

  // Without `Upgrade: websocket`, the WebSocket transport's URL says how to reach it (issue 25).
  app.get('/v1/responses', (_req, res) => {
    locals(res).surface = 'responses';
    throw new GatewayError('invalid_request', WEBSOCKET_UPGRADE_HINT, { status: 426 });
  });
  app.use(createModelsRouter(deps.catalog, services.authenticator, deps.config.trustedProxies));
  app.use(createCountTokensRouter(deps, services));
  app.use(createImagesRouter(deps, services));
  const tasksRouter = createTasksRouter(deps, services);
  app.use(tasksRouter);
  const stopSockets: Array<() => void> = [];

  const managementAuth = createManagementAuth(deps, services.authenticator);
  const management = express.Router();
  management.use(['/api', '/v1/keys'], jsonBody(deps.config.maxBodyBytes));
  management.use(createAuthRouter(deps));
  management.use(createKeysRouter(deps, { authenticator: services.authenticator, managementAuth }));
  management.use(createAccountRouter(deps, { managementAuth }));
  const alertsRouter = createAlertsRouter(deps, { managementAuth }); // issue 22
  management.use(alertsRouter);
  app.closeRoutes = async () => {
    for (const stop of stopSockets) stop();
    await tasksRouter.close();
    await alertsRouter.close();
  };
  management.use(createRoutingDecisionsRouter(deps, { managementAuth })); // issue 17
  management.use(createDialTestRouter(deps, services));
  management.use(createRequestsRouter(deps, { managementAuth })); // issue 22; before the operator router, which checks operators once more
  management.use(createOperatorRouter(deps, services));
  app.use(management);
  app.use(createConsoleRouter());

  app.use((req, res) => {
    locals(res).surface = surfaceOfPath(req.path);
    throw new GatewayError('not_found', `no route for ${req.method} ${req.path}`);
  });
  app.use(createErrorMiddleware(deps.logger, renderers));

  app.requestListener = (req: IncomingMessage, res: ServerResponse) => {
    if (!inference.handle(req, res)) app(req, res);
  };
  // Express's own listen (it runs `http.createServer(this)` and reports listen errors to the
  // callback), given the listener above as `this` instead of the bare app.
  const expressListen = app.listen;
  app.listen = ((...args: unknown[]): Server => {
    const server = Reflect.apply(expressListen, app.requestListener, args) as Server;
    answerClientErrors(server, renderers);
    stopSockets.push(attachResponsesWebSocket(server, deps, services, inference, renderers));
    return server;
  }) as GatewayApp['listen'];
  return app;
}
