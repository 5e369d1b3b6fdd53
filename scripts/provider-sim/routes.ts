/** Which handler answers a method and path, in which protocol and error family. */
import type { SimContext } from './http/context';
import type { SimProtocol } from './request-log';
import type { ErrorFamily } from './sim-error';
import type { MultipartForm } from './images/parse-multipart';
import { handleMessages } from './messages/handle-messages';
import { handleChat } from './chat/handle-chat';
import { handleGetResponse, handleResponses } from './responses/handle-responses';
import { handleResponsesCompact } from './responses/handle-compact';
import { handleGenerateContent } from './generate-content/handle-generate-content';
import { handleImageEdit, handleImageFile, handleImageGeneration } from './images/handle-images';
import { handleGenerateContentCountTokens, handleMessagesCountTokens, handleResponsesInputTokens } from './count/handle-count-tokens';
import { handleAzureChat } from './azure/handle-azure-chat';
import { handleAnthropicModelList, handleGoogleModelList, handleOpenAIModelList } from './model-list/handle-model-list';
import { handleVideoCancel, handleVideoDownload, handleVideoPoll, handleVideoSubmit } from './video/handle-video';

export type RouteBody = { kind: 'json'; value: unknown } | { kind: 'multipart'; value: MultipartForm | null } | { kind: 'none' };

export interface Route {
  protocol: SimProtocol;
  family: ErrorFamily;
  body: RouteBody['kind'];
  authenticated: boolean;
  /** The model named in the path (Generate-Content, video); otherwise it is read from the body. */
  pathModel: string | null;
  /** Whether the answer streams, when the path says so (Generate-Content). */
  pathStream: boolean;
  /** A provider whose credential header differs from its family's (Azure OpenAI's `api-key`). */
  auth?: 'azure';
  run(context: SimContext, body: RouteBody, model: string): Promise<void> | void;
}

function json(body: RouteBody): unknown {
  return body.kind === 'json' ? body.value : null;
}

function base(protocol: SimProtocol, family: ErrorFamily, bodyKind: RouteBody['kind'], run: Route['run']): Route {
  return { protocol, family, body: bodyKind, authenticated: true, pathModel: null, pathStream: false, run };
}

function modelSegment(raw: string): string {
  const decoded = decodeURIComponent(raw);
  return decoded.startsWith('models/') ? decoded.slice('models/'.length) : decoded;
}

/** `anthropic`: the call carries `anthropic-version` (the model list answers in Anthropic's shape). */
export function findRoute(method: string, path: string, anthropic = false): Route | null {
  if (method === 'POST') {
    const azure = /^\/openai\/deployments\/([^/]+)\/chat\/completions$/.exec(path);
    if (azure !== null) {
      const deployment = decodeURIComponent(azure[1]!);
      return {
        ...base('chat', 'openai', 'json', (context, body) => handleAzureChat(context, json(body), deployment)),
        pathModel: deployment,
        auth: 'azure',
      };
    }
    switch (path) {
      case '/v1/messages':
        return base('messages', 'anthropic', 'json', (context, body, model) => handleMessages(context, json(body), model));
      case '/v1/chat/completions':
        return base('chat', 'openai', 'json', (context, body, model) => handleChat(context, json(body), model));
      case '/v1/responses':
        return base('responses', 'openai', 'json', (context, body, model) => handleResponses(context, json(body), model));
      case '/v1/messages/count_tokens':
        return base('messages', 'anthropic', 'json', (context, body, model) => handleMessagesCountTokens(context, json(body), model));
      case '/v1/responses/compact':
        return base('responses', 'openai', 'json', (context, body, model) => handleResponsesCompact(context, json(body), model));
      case '/v1/responses/input_tokens':
        return base('responses', 'openai', 'json', (context, body, model) => handleResponsesInputTokens(context, json(body), model));
      case '/v1/images/generations':
        return base('images', 'openai', 'json', (context, body) => handleImageGeneration(context, json(body)));
      case '/v1/images/edits':
        return base('images', 'openai', 'multipart', (context, body) =>
          handleImageEdit(context, body.kind === 'multipart' ? body.value : null),
        );
    }
    const generate = /^\/v1(?:beta)?\/models\/([^/:]+):(generateContent|streamGenerateContent)$/.exec(path);
    if (generate !== null) {
      const stream = generate[2] === 'streamGenerateContent';
      return {
        ...base('generate-content', 'google', 'json', (context, body, model) => handleGenerateContent(context, json(body), model, stream)),
        pathModel: modelSegment(generate[1]!),
        pathStream: stream,
      };
    }
    const count = /^\/v1(?:beta)?\/models\/([^/:]+):countTokens$/.exec(path);
    if (count !== null) {
      return {
        ...base('generate-content', 'google', 'json', (context, body, model) =>
          handleGenerateContentCountTokens(context, json(body), model),
        ),
        pathModel: modelSegment(count[1]!),
      };
    }
    const submit = /^\/v1beta\/models\/([^/:]+):predictLongRunning$/.exec(path);
    if (submit !== null) {
      return {
        ...base('video', 'google', 'json', (context, body, model) => handleVideoSubmit(context, json(body), model)),
        pathModel: modelSegment(submit[1]!),
      };
    }
    const cancel = /^\/v1beta\/(?:models\/([^/]+)\/)?operations\/([a-z0-9]+):cancel$/.exec(path);
    if (cancel !== null) {
      return {
        ...base('video', 'google', 'json', (context) => handleVideoCancel(context, cancel[2]!)),
        pathModel: cancel[1] === undefined ? null : modelSegment(cancel[1]),
      };
    }
    return null;
  }
  if (method === 'GET') {
    if (path === '/v1/models')
      return anthropic
        ? base('messages', 'anthropic', 'none', handleAnthropicModelList)
        : base('chat', 'openai', 'none', handleOpenAIModelList);
    if (path === '/v1beta/models') return base('generate-content', 'google', 'none', handleGoogleModelList);
    const poll = /^\/v1beta\/(?:models\/([^/]+)\/)?operations\/([a-z0-9]+)$/.exec(path);
    if (poll !== null) {
      return {
        ...base('video', 'google', 'none', (context) => handleVideoPoll(context, poll[2]!)),
        pathModel: poll[1] === undefined ? null : modelSegment(poll[1]),
      };
    }
    const download = /^\/v1beta\/files\/([a-z0-9]+):download$/.exec(path);
    if (download !== null) return base('video', 'google', 'none', (context) => handleVideoDownload(context, download[1]!));
    const response = /^\/v1\/responses\/([A-Za-z0-9_]+)$/.exec(path);
    if (response !== null) return base('responses', 'openai', 'none', (context) => handleGetResponse(context, response[1]!));
    const image = /^\/v1\/images\/files\/([a-z0-9]+)\.png$/.exec(path);
    if (image !== null)
      return { ...base('images', 'openai', 'none', (context) => handleImageFile(context, image[1]!)), authenticated: false };
  }
  return null;
}
