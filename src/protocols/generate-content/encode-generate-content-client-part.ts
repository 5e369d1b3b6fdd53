/**
 * One IR content part → the Generate-Content part a client receives (undefined when the part has
 * no client-side form). Opaque values of other protocols ride in `thoughtSignature`, which the
 * client echoes back verbatim.
 */
import { assertNever } from '../../ir/assert-never';
import type { ContentPart, MediaSource } from '../../ir/parts';
import { argumentsToObject } from '../shared/tool-arguments';
import { GENERATE_CONTENT, reasoningToThoughtSignature, signatureToThoughtSignature } from './generate-content-thought-signature';

export type GenerateContentClientPart = Record<string, unknown>;

export function encodeGenerateContentClientPart(part: ContentPart): GenerateContentClientPart | undefined {
  switch (part.type) {
    case 'text':
      return { text: part.text };
    case 'refusal':
      // No refusal part exists: the text is shown and the finish reason says SAFETY.
      return { text: part.text };
    case 'reasoning': {
      const thoughtSignature = reasoningToThoughtSignature(part);
      // A signature with no thought text is what the provider itself sends (`{text: "", thoughtSignature}`).
      if (part.text === '') return thoughtSignature === undefined ? undefined : { text: '', thoughtSignature };
      return { text: part.text, thought: true, ...(thoughtSignature !== undefined ? { thoughtSignature } : {}) };
    }
    case 'tool_call':
      return {
        functionCall: { id: part.id, name: part.name, args: argumentsToObject(part.argumentsJson) },
        ...(part.signature ? { thoughtSignature: signatureToThoughtSignature(part.signature) } : {}),
      };
    case 'image':
    case 'document':
      return mediaPart(part.source);
    case 'native':
      return part.protocol === GENERATE_CONTENT ? part.value : undefined;
    case 'tool_result':
      return undefined; // never part of an answer
    default:
      return assertNever(part, 'content part');
  }
}

function mediaPart(source: MediaSource): GenerateContentClientPart {
  switch (source.kind) {
    case 'base64':
      return { inlineData: { mimeType: source.mediaType, data: source.data } };
    case 'url':
      return { fileData: { fileUri: source.url } };
    case 'file':
      return { fileData: { fileUri: source.uri ?? source.fileId ?? '', ...(source.mediaType ? { mimeType: source.mediaType } : {}) } };
    default:
      return assertNever(source, 'media source');
  }
}
