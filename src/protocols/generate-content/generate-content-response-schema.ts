/**
 * What a Generate-Content provider answers (a whole body or one stream chunk). Lenient on purpose:
 * every field is `nullish` and objects are loose, so a new provider field never breaks decoding.
 */
import { z } from 'zod';

export const generateContentUsageMetadataSchema = z.looseObject({
  promptTokenCount: z.number().nullish(),
  cachedContentTokenCount: z.number().nullish(),
  candidatesTokenCount: z.number().nullish(),
  thoughtsTokenCount: z.number().nullish(),
  toolUsePromptTokenCount: z.number().nullish(),
  totalTokenCount: z.number().nullish(),
});

export const generateContentPartialArgSchema = z.looseObject({
  jsonPath: z.string().nullish(),
  stringValue: z.string().nullish(),
  numberValue: z.number().nullish(),
  boolValue: z.boolean().nullish(),
  nullValue: z.unknown().optional(),
  willContinue: z.boolean().nullish(),
});

export const generateContentResponseFunctionCallSchema = z.looseObject({
  id: z.string().nullish(),
  name: z.string().nullish(),
  args: z.record(z.string(), z.unknown()).nullish(),
  /** Streamed arguments (`streamFunctionCallArguments`): pieces addressed by JSON path. */
  partialArgs: z.array(generateContentPartialArgSchema).nullish(),
  willContinue: z.boolean().nullish(),
});

export const generateContentResponsePartSchema = z.looseObject({
  text: z.string().nullish(),
  thought: z.boolean().nullish(),
  thoughtSignature: z.string().nullish(),
  inlineData: z.looseObject({ mimeType: z.string().nullish(), data: z.string().nullish() }).nullish(),
  fileData: z.looseObject({ mimeType: z.string().nullish(), fileUri: z.string().nullish() }).nullish(),
  functionCall: generateContentResponseFunctionCallSchema.nullish(),
});

export const generateContentCandidateSchema = z.looseObject({
  content: z
    .looseObject({
      role: z.string().nullish(),
      parts: z.array(generateContentResponsePartSchema).nullish(),
    })
    .nullish(),
  finishReason: z.string().nullish(),
  finishMessage: z.string().nullish(),
  index: z.number().nullish(),
});

export const generateContentResponseSchema = z.looseObject({
  candidates: z.array(generateContentCandidateSchema).nullish(),
  promptFeedback: z.looseObject({ blockReason: z.string().nullish() }).nullish(),
  usageMetadata: generateContentUsageMetadataSchema.nullish(),
  modelVersion: z.string().nullish(),
  responseId: z.string().nullish(),
  createTime: z.string().nullish(),
});

export type GenerateContentResponseBody = z.infer<typeof generateContentResponseSchema>;
export type GenerateContentResponsePart = z.infer<typeof generateContentResponsePartSchema>;
export type GenerateContentResponseFunctionCall = z.infer<typeof generateContentResponseFunctionCallSchema>;
export type GenerateContentPartialArg = z.infer<typeof generateContentPartialArgSchema>;
export type GenerateContentUsageMetadata = z.infer<typeof generateContentUsageMetadataSchema>;
