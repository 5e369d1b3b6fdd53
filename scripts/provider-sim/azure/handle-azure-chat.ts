/**
 * Azure OpenAI's Chat Completions shape: `POST /openai/deployments/<deployment>/chat/completions
 * ?api-version=<version>` with the key in an `api-key` header. The deployment stands for the model
 * (a deployment named after each model the simulator serves); the body's `model` is optional, as on Azure.
 */
import { handleChat } from '../chat/handle-chat';
import type { SimContext } from '../http/context';
import { isRecord } from '../json';
import { openaiError } from '../sim-error';

export async function handleAzureChat(context: SimContext, body: unknown, deployment: string): Promise<void> {
  if (!context.query.get('api-version')) throw openaiError(404, 'Resource not found', { code: '404', type: 'invalid_request_error' });
  if (context.state.models.find('chat', deployment) === undefined) {
    throw openaiError(
      404,
      'The API deployment for this resource does not exist. If you created the deployment within the last 5 minutes, please wait a moment and try again.',
      { code: 'DeploymentNotFound' },
    );
  }
  await handleChat(context, isRecord(body) ? { ...body, model: deployment } : body, deployment);
}
