/**
 * Generate-Content parts → IR content parts, shared by the client request decoder (history) and the
 * upstream response decoder. A `thoughtSignature` on a part that is not a thought or a call (the
 * final empty text part of a stream, or a text answer) becomes a reasoning part with empty text
 * right after it, so the signature survives and is replayed next to the part it came with.
 * Consecutive thought parts fold into one reasoning part, closed by the first signature among them.
 */
import type { Opaque } from '../../ir/opaque';
import type { ContentPart, ImagePart, MediaSource, ReasoningPart, TextPart } from '../../ir/parts';
import type { GenerateContentResponsePart } from './generate-content-response-schema';
import {
  GENERATE_CONTENT,
  thoughtSignatureToReasoning,
  thoughtSignatureToSignature,
  type ReasoningOpaques,
} from './generate-content-thought-signature';

export interface FunctionResponseInput {
  id?: string | null;
  name: string;
  response?: Record<string, unknown> | null;
  parts?: Array<{ inlineData?: { mimeType: string; data: string }; fileData?: { mimeType?: string; fileUri: string } }>;
}

export interface DecodePartsOptions {
  /** `client`: a signature may be a wrapped value of another protocol; `upstream`: always the provider's own. */
  signatures: 'client' | 'upstream';
  /** Id for a function call that carries none. */
  callId(functionCall: { id?: string | null; name: string }): string;
  /** The client's name for a tool (restores names sanitized for the upstream). */
  toolName(name: string): string;
  /** Call id a function response answers (pairs by id, else by name and order). */
  responseCallId?(functionResponse: FunctionResponseInput): string;
}

type DecodablePart = GenerateContentResponsePart & { functionResponse?: FunctionResponseInput | null };

export function decodeGenerateContentParts(parts: readonly DecodablePart[], options: DecodePartsOptions): ContentPart[] {
  const out: ContentPart[] = [];
  // Reasoning parts decoded from thoughts without a signature yet: the next thought part extends them.
  const unsignedThought = new Set<ReasoningPart>();
  for (const part of parts) {
    const signature = part.thoughtSignature ?? undefined;
    if (part.functionCall) {
      const call = part.functionCall;
      const name = call.name ?? '';
      out.push({
        type: 'tool_call',
        id: options.callId({ id: call.id, name }),
        name: options.toolName(name),
        argumentsJson: JSON.stringify(call.args ?? {}),
        ...(signature !== undefined ? { signature: toolSignature(signature, options) } : {}),
      });
      continue;
    }
    if (part.functionResponse) {
      out.push(decodeFunctionResponse(part.functionResponse, options));
      if (signature !== undefined) out.push(signatureOnly(signature, options));
      continue;
    }
    if (typeof part.text === 'string' && part.thought === true) {
      const opaques = signature !== undefined ? reasoningOpaques(signature, options) : {};
      const previous = out[out.length - 1];
      if (previous?.type === 'reasoning' && unsignedThought.has(previous)) {
        // Consecutive thoughts are one reasoning part until a signature ends it, as the stream
        // decoder reads them: a streaming client replays one thought part per chunk, then the
        // signature on an empty one, and the signature signs the whole text.
        previous.text += part.text;
        Object.assign(previous, opaques);
        if (signature !== undefined) unsignedThought.delete(previous);
      } else {
        const reasoning: ReasoningPart = { type: 'reasoning', text: part.text, ...opaques };
        out.push(reasoning);
        if (signature === undefined) unsignedThought.add(reasoning);
      }
      continue;
    }
    const decoded = decodeContentPart(part);
    if (decoded !== undefined) {
      if (!(decoded.type === 'text' && decoded.text === '')) out.push(decoded);
    } else {
      const native = stripSignature(part);
      // `{thought: true, thoughtSignature}` alone is only a signature, not an unknown kind of part.
      if (Object.keys(native).some((key) => key !== 'thought')) out.push({ type: 'native', protocol: GENERATE_CONTENT, value: native });
    }
    if (signature !== undefined) out.push(signatureOnly(signature, options));
  }
  return out;
}

/** Text, inline bytes or a file reference; undefined for any other kind of part. */
function decodeContentPart(part: DecodablePart): ContentPart | undefined {
  if (typeof part.text === 'string') return { type: 'text', text: part.text };
  if (part.inlineData) {
    const mediaType = part.inlineData.mimeType ?? 'application/octet-stream';
    return mediaPart(mediaType, { kind: 'base64', mediaType, data: part.inlineData.data ?? '' });
  }
  if (part.fileData && typeof part.fileData.fileUri === 'string') {
    const mediaType = part.fileData.mimeType ?? undefined;
    return mediaPart(mediaType, { kind: 'file', uri: part.fileData.fileUri, ...(mediaType ? { mediaType } : {}) });
  }
  return undefined;
}

function mediaPart(mediaType: string | undefined, source: MediaSource): ContentPart {
  if (mediaType === undefined || mediaType.startsWith('image/')) return { type: 'image', source };
  return { type: 'document', source };
}

function decodeFunctionResponse(response: FunctionResponseInput, options: DecodePartsOptions): ContentPart {
  const callId = options.responseCallId ? options.responseCallId(response) : options.callId({ id: response.id, name: response.name });
  const body = response.response ?? {};
  const keys = Object.keys(body);
  let isError = false;
  let text: string;
  // `{content: "…"}` and `{error: …}` are the wrappers our encoder (and most clients) use for a
  // plain-text result; anything else is kept as the JSON it is.
  if (keys.length === 1 && keys[0] === 'content' && typeof body.content === 'string') text = body.content;
  else if (keys.length === 1 && keys[0] === 'error') {
    isError = true;
    text = typeof body.error === 'string' ? body.error : JSON.stringify(body.error);
  } else text = JSON.stringify(body);
  const content: Array<TextPart | ImagePart> = [{ type: 'text', text }];
  for (const extra of response.parts ?? []) {
    if (extra.inlineData)
      content.push({ type: 'image', source: { kind: 'base64', mediaType: extra.inlineData.mimeType, data: extra.inlineData.data } });
    else if (extra.fileData)
      content.push({
        type: 'image',
        source: { kind: 'file', uri: extra.fileData.fileUri, ...(extra.fileData.mimeType ? { mediaType: extra.fileData.mimeType } : {}) },
      });
  }
  return { type: 'tool_result', callId, name: options.toolName(response.name), content, ...(isError ? { isError } : {}) };
}

function toolSignature(signature: string, options: DecodePartsOptions): Opaque {
  return options.signatures === 'client' ? thoughtSignatureToSignature(signature) : { origin: GENERATE_CONTENT, value: signature };
}

function reasoningOpaques(signature: string, options: DecodePartsOptions): ReasoningOpaques {
  return options.signatures === 'client'
    ? thoughtSignatureToReasoning(signature)
    : { signature: { origin: GENERATE_CONTENT, value: signature } };
}

function signatureOnly(signature: string, options: DecodePartsOptions): ReasoningPart {
  return { type: 'reasoning', text: '', ...reasoningOpaques(signature, options) };
}

function stripSignature(part: DecodablePart): Record<string, unknown> {
  const { thoughtSignature: _signature, ...rest } = part;
  return rest;
}
