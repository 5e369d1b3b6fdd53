/**
 * Video generation as a long-running operation (Generate-Content family):
 * `POST /v1beta/models/{model}:predictLongRunning` → `{name}`; `GET /v1beta/{name}` → running, then
 * done with a video URI, an error, or filtered; `POST /v1beta/{name}:cancel`;
 * `GET /v1beta/files/{id}:download?alt=media` → the MP4 bytes.
 */
import { arrayField, isRecord, numberField, recordField, stringField } from '../json';
import { randomId } from '../ids';
import type { SimContext } from '../http/context';
import { sendBytes, sendJson } from '../http/send';
import { googleError, googleInvalid } from '../sim-error';
import { sniffImageType } from '../images/sniff-image-type';
import { buildMp4 } from './mp4';
import type { VideoOperation } from './video-operation';

const RESOLUTIONS = ['720p', '1080p'];
const ASPECT_RATIOS = ['16:9', '9:16', '1:1'];
const MAX_DURATION_SECONDS = 8;
const OPERATION_ID_LENGTH = 16;
const RESPONSE_TYPE = 'type.googleapis.com/google.ai.generativelanguage.v1beta.PredictLongRunningResponse';
const METADATA_TYPE = 'type.googleapis.com/google.ai.generativelanguage.v1beta.PredictLongRunningMetadata';

export function handleVideoSubmit(context: SimContext, body: unknown, modelName: string): void {
  if (context.state.models.find('video', modelName) === undefined) {
    throw googleError(
      404,
      `models/${modelName} is not found for API version v1beta, or is not supported for predictLongRunning. Call ListModels to see the list of available models and their supported methods.`,
      'NOT_FOUND',
    );
  }
  if (!isRecord(body)) throw googleInvalid('Invalid JSON payload received. Expected an object.');
  const instance = arrayField(body, 'instances')?.[0];
  if (!isRecord(instance)) throw googleInvalid('* PredictLongRunningRequest.instances: instances is required.\n');
  const prompt = stringField(instance, 'prompt');
  if (prompt === undefined || prompt.trim() === '')
    throw googleInvalid('* PredictLongRunningRequest.instances[0].prompt: prompt is required.\n');
  checkImage(instance.image, 'image');
  checkImage(instance.lastFrame, 'lastFrame');
  const parameters = recordField(body, 'parameters') ?? {};
  const durationSeconds = parameters.durationSeconds ?? MAX_DURATION_SECONDS;
  if (
    typeof durationSeconds !== 'number' ||
    !Number.isInteger(durationSeconds) ||
    durationSeconds < 1 ||
    durationSeconds > MAX_DURATION_SECONDS
  ) {
    throw googleInvalid(
      `The number value for \`durationSeconds\` is out of bound. Please provide a value between 1 and ${MAX_DURATION_SECONDS}, inclusive.`,
    );
  }
  const resolution = stringField(parameters, 'resolution') ?? '720p';
  if (!RESOLUTIONS.includes(resolution))
    throw googleInvalid(`\`resolution\` ${resolution} is not supported. Supported values: ${RESOLUTIONS.join(', ')}.`);
  const aspectRatio = stringField(parameters, 'aspectRatio') ?? '16:9';
  if (!ASPECT_RATIOS.includes(aspectRatio))
    throw googleInvalid(`\`aspectRatio\` ${aspectRatio} is not supported. Supported values: ${ASPECT_RATIOS.join(', ')}.`);
  const sampleCount = numberField(parameters, 'sampleCount') ?? 1;
  if (!Number.isInteger(sampleCount) || sampleCount < 1 || sampleCount > 4)
    throw googleInvalid('`sampleCount` must be between 1 and 4, inclusive.');

  const id = randomId(OPERATION_ID_LENGTH, 'lower36');
  const operation: VideoOperation = {
    id,
    name: `models/${modelName}/operations/${id}`,
    prompt,
    durationSeconds,
    resolution,
    aspectRatio,
    sampleCount,
    doneAt: Date.now() + context.state.options.videoMs,
    cancelled: false,
  };
  context.state.videoOperations.set(id, operation);
  sendJson(context, 200, { name: operation.name });
}

function checkImage(image: unknown, name: string): void {
  if (image === undefined || image === null) return;
  const data = isRecord(image) ? stringField(image, 'bytesBase64Encoded') : undefined;
  const mimeType = isRecord(image) ? stringField(image, 'mimeType') : undefined;
  if (data === undefined || mimeType === undefined)
    throw googleInvalid(`* PredictLongRunningRequest.instances[0].${name}: bytesBase64Encoded and mimeType are required.\n`);
  const actual = sniffImageType(Buffer.from(data, 'base64'));
  if (actual === null || actual !== mimeType)
    throw googleInvalid(`* PredictLongRunningRequest.instances[0].${name}: the image bytes are not a valid ${mimeType} image.\n`);
}

function findOperation(context: SimContext, id: string): VideoOperation {
  const operation = context.state.videoOperations.get(id);
  if (operation === undefined) throw googleError(404, 'Requested entity was not found.', 'NOT_FOUND');
  return operation;
}

export function handleVideoPoll(context: SimContext, id: string): void {
  const operation = findOperation(context, id);
  sendJson(context, 200, operationState(context, operation));
}

function succeeded(operation: VideoOperation): boolean {
  return (
    !operation.cancelled &&
    Date.now() >= operation.doneAt &&
    !operation.prompt.includes('FAIL_VIDEO') &&
    !operation.prompt.includes('FILTER_VIDEO')
  );
}

function operationState(context: SimContext, operation: VideoOperation): Record<string, unknown> {
  const { name } = operation;
  if (operation.cancelled) return { name, done: true, error: { code: 1, message: 'CANCELLED', status: 'CANCELLED' } };
  if (Date.now() < operation.doneAt) return { name, done: false, metadata: { '@type': METADATA_TYPE } };
  if (operation.prompt.includes('FAIL_VIDEO')) {
    return {
      name,
      done: true,
      error: { code: 3, message: 'The video could not be generated for this prompt (simulated failure).', status: 'INVALID_ARGUMENT' },
    };
  }
  if (operation.prompt.includes('FILTER_VIDEO')) {
    return {
      name,
      done: true,
      response: {
        '@type': RESPONSE_TYPE,
        generateVideoResponse: {
          raiMediaFilteredCount: 1,
          raiMediaFilteredReasons: ["Your prompt couldn't be submitted because it may violate our policies (simulated filter)."],
        },
      },
    };
  }
  const generatedSamples = [];
  for (let index = 0; index < operation.sampleCount; index++) {
    generatedSamples.push({ video: { uri: `${context.state.baseUrl}/v1beta/files/${operation.id}${index}:download?alt=media` } });
  }
  return { name, done: true, response: { '@type': RESPONSE_TYPE, generateVideoResponse: { generatedSamples } } };
}

export function handleVideoCancel(context: SimContext, id: string): void {
  const operation = findOperation(context, id);
  if (Date.now() < operation.doneAt) operation.cancelled = true;
  sendJson(context, 200, {});
}

export function handleVideoDownload(context: SimContext, fileId: string): void {
  const operation = context.state.videoOperations.get(fileId.slice(0, OPERATION_ID_LENGTH));
  const sample = Number(fileId.slice(OPERATION_ID_LENGTH));
  if (operation === undefined || !succeeded(operation) || !(sample < operation.sampleCount)) {
    throw googleError(404, `File files/${fileId} not found.`, 'NOT_FOUND');
  }
  const seed = `${operation.prompt}\u0000${operation.resolution}\u0000${operation.aspectRatio}\u0000${sample}`;
  sendBytes(context, 200, 'video/mp4', buildMp4(seed, operation.durationSeconds));
}
