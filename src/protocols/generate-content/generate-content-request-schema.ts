/**
 * What the gateway accepts from a Generate-Content client (`POST /v1beta/models/{model}:generateContent`).
 * The model and the streaming switch come from the URL, never from the body. Objects are loose so
 * fields we do not model (newer API fields) survive as extensions for native pass-through.
 */
import { z } from 'zod';

const jsonObject = z.record(z.string(), z.unknown());

export const generateContentBlobSchema = z.looseObject({
  mimeType: z.string(),
  data: z.string(),
});

export const generateContentFileDataSchema = z.looseObject({
  mimeType: z.string().optional(),
  fileUri: z.string(),
});

export const generateContentFunctionCallSchema = z.looseObject({
  id: z.string().optional(),
  name: z.string().min(1),
  args: jsonObject.nullish(),
});

export const generateContentFunctionResponseSchema = z.looseObject({
  id: z.string().optional(),
  name: z.string().min(1),
  response: jsonObject.nullish(),
  /** Multimodal function responses (images returned by a tool). */
  parts: z
    .array(z.looseObject({ inlineData: generateContentBlobSchema.optional(), fileData: generateContentFileDataSchema.optional() }))
    .optional(),
});

/**
 * A part is a union keyed by which field is present (`text`, `inlineData`, …); zod checks each
 * field's shape and the decoder decides the kind, so unknown part kinds become native parts.
 */
export const generateContentPartSchema = z.looseObject({
  text: z.string().optional(),
  thought: z.boolean().optional(),
  thoughtSignature: z.string().optional(),
  inlineData: generateContentBlobSchema.optional(),
  fileData: generateContentFileDataSchema.optional(),
  functionCall: generateContentFunctionCallSchema.optional(),
  functionResponse: generateContentFunctionResponseSchema.optional(),
});

export const generateContentContentSchema = z.looseObject({
  role: z.enum(['user', 'model']).optional(),
  parts: z.array(generateContentPartSchema),
});

export const generateContentFunctionDeclarationSchema = z.looseObject({
  name: z.string().min(1),
  description: z.string().optional(),
  /** OpenAPI subset schema (types may be upper case). */
  parameters: jsonObject.nullish(),
  /** Plain JSON Schema, the newer alternative to `parameters`. */
  parametersJsonSchema: jsonObject.nullish(),
});

export const generateContentToolSchema = z.looseObject({
  functionDeclarations: z.array(generateContentFunctionDeclarationSchema).optional(),
});

export const generateContentToolConfigSchema = z.looseObject({
  functionCallingConfig: z
    .looseObject({
      mode: z.enum(['MODE_UNSPECIFIED', 'AUTO', 'ANY', 'NONE', 'VALIDATED']).optional(),
      allowedFunctionNames: z.array(z.string()).optional(),
    })
    .optional(),
});

export const generateContentThinkingConfigSchema = z.looseObject({
  thinkingBudget: z.number().int().min(-1).optional(),
  includeThoughts: z.boolean().optional(),
  thinkingLevel: z.string().optional(),
});

export const generateContentGenerationConfigSchema = z.looseObject({
  maxOutputTokens: z.number().int().positive().optional(),
  temperature: z.number().min(0).max(2).optional(),
  topP: z.number().min(0).max(1).optional(),
  topK: z.number().int().positive().optional(),
  stopSequences: z.array(z.string()).max(5).optional(),
  candidateCount: z.number().int().positive().optional(),
  seed: z.number().int().optional(),
  presencePenalty: z.number().optional(),
  frequencyPenalty: z.number().optional(),
  responseLogprobs: z.boolean().optional(),
  logprobs: z.number().int().min(0).optional(),
  responseMimeType: z.string().optional(),
  responseSchema: jsonObject.optional(),
  responseJsonSchema: jsonObject.optional(),
  thinkingConfig: generateContentThinkingConfigSchema.optional(),
});

export const generateContentRequestSchema = z.looseObject({
  contents: z.array(generateContentContentSchema).min(1),
  systemInstruction: z
    .looseObject({
      role: z.string().optional(),
      parts: z.array(z.looseObject({ text: z.string() })),
    })
    .optional(),
  tools: z.array(generateContentToolSchema).optional(),
  toolConfig: generateContentToolConfigSchema.optional(),
  generationConfig: generateContentGenerationConfigSchema.optional(),
  safetySettings: z.array(z.looseObject({ category: z.string(), threshold: z.string() })).optional(),
  cachedContent: z.string().optional(),
});

export type GenerateContentRequestBody = z.infer<typeof generateContentRequestSchema>;
export type GenerateContentContent = z.infer<typeof generateContentContentSchema>;
export type GenerateContentPart = z.infer<typeof generateContentPartSchema>;
export type GenerateContentGenerationConfig = z.infer<typeof generateContentGenerationConfigSchema>;
