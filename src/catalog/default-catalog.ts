/**
 * The default model catalog: all eight families, two image models (families 2 and 3) and a video
 * model (family 3). Every model is served by the provider simulator in development and tests.
 * Protocols follow the interface's family table.
 */
import type { CatalogModel, Capability } from './model';

const CREATED = 1767225600; // 2026-01-01
const CHAT: Capability[] = ['text', 'streaming', 'tool_use'];

export const DEFAULT_CATALOG: CatalogModel[] = [
  // Family 1: originates Messages.
  {
    id: 'claude-sonnet-4-5', familyNumber: 1, family: 'anthropic', ownedBy: 'anthropic', kind: 'chat',
    capabilities: [...CHAT, 'vision', 'cache_control', 'thinking', 'json_schema'],
    contextWindow: 200_000, maxOutputTokens: 16_384, inputModalities: ['text', 'image'], outputModalities: ['text'],
    created: CREATED, nativeProtocols: ['messages'], protocols: ['messages', 'responses', 'chat'],
    prices: { inputPerMillion: 3_000_000, outputPerMillion: 15_000_000, cacheReadPerMillion: 300_000, cacheWritePerMillion: 3_750_000 },
  },
  {
    id: 'claude-haiku-4-5', familyNumber: 1, family: 'anthropic', ownedBy: 'anthropic', kind: 'chat',
    capabilities: [...CHAT, 'vision', 'cache_control'],
    contextWindow: 200_000, maxOutputTokens: 16_384, inputModalities: ['text', 'image'], outputModalities: ['text'],
    created: CREATED, nativeProtocols: ['messages'], protocols: ['messages', 'responses', 'chat'],
    prices: { inputPerMillion: 1_000_000, outputPerMillion: 5_000_000, cacheReadPerMillion: 100_000, cacheWritePerMillion: 1_250_000 },
  },
  // Family 2: originates Chat Completions and Responses.
  {
    id: 'gpt-5', familyNumber: 2, family: 'openai', ownedBy: 'openai', kind: 'chat',
    capabilities: [...CHAT, 'vision', 'thinking', 'json_schema'],
    contextWindow: 200_000, maxOutputTokens: 16_384, inputModalities: ['text', 'image'], outputModalities: ['text'],
    created: CREATED, nativeProtocols: ['responses', 'chat'], protocols: ['messages', 'responses', 'chat'],
    prices: { inputPerMillion: 1_250_000, outputPerMillion: 10_000_000, cacheReadPerMillion: 125_000 },
    fixedTemperature: 1,
  },
  {
    id: 'gpt-4.1', familyNumber: 2, family: 'openai', ownedBy: 'openai', kind: 'chat',
    capabilities: [...CHAT, 'vision', 'json_schema', 'logprobs'],
    contextWindow: 128_000, maxOutputTokens: 16_384, inputModalities: ['text', 'image'], outputModalities: ['text'],
    created: CREATED, nativeProtocols: ['chat', 'responses'], protocols: ['messages', 'responses', 'chat'],
    prices: { inputPerMillion: 2_000_000, outputPerMillion: 8_000_000, cacheReadPerMillion: 500_000 },
  },
  {
    id: 'gpt-image-1', familyNumber: 2, family: 'openai', ownedBy: 'openai', kind: 'image',
    capabilities: ['text', 'image_gen'],
    contextWindow: 32_000, maxOutputTokens: 0, inputModalities: ['text', 'image'], outputModalities: ['image'],
    created: CREATED, nativeProtocols: ['chat'], protocols: [],
    prices: { perImage: { '1024x1024:standard': 40_000, '1024x1024:high': 170_000, '*:standard': 80_000, '*:high': 250_000 } },
    image: { qualities: ['standard', 'high', 'low', 'medium', 'auto'], editable: true },
  },
  // Family 3: originates Generate-Content.
  {
    id: 'gemini-2.5-pro', familyNumber: 3, family: 'google', ownedBy: 'google', kind: 'chat',
    capabilities: [...CHAT, 'vision', 'thinking', 'json_schema', 'cache_control'],
    contextWindow: 1_000_000, maxOutputTokens: 16_384, inputModalities: ['text', 'image', 'audio', 'video'], outputModalities: ['text'],
    created: CREATED, nativeProtocols: ['generate-content'], protocols: ['messages', 'responses', 'chat', 'generate-content'],
    prices: { inputPerMillion: 1_250_000, outputPerMillion: 10_000_000, cacheReadPerMillion: 312_500 },
  },
  {
    id: 'gemini-2.5-flash', familyNumber: 3, family: 'google', ownedBy: 'google', kind: 'chat',
    capabilities: [...CHAT, 'vision', 'thinking', 'json_schema'],
    contextWindow: 1_000_000, maxOutputTokens: 16_384, inputModalities: ['text', 'image'], outputModalities: ['text'],
    created: CREATED, nativeProtocols: ['generate-content'], protocols: ['messages', 'responses', 'chat', 'generate-content'],
    prices: { inputPerMillion: 300_000, outputPerMillion: 2_500_000, cacheReadPerMillion: 75_000 },
  },
  {
    id: 'gemini-2.5-flash-image', familyNumber: 3, family: 'google', ownedBy: 'google', kind: 'image',
    capabilities: ['text', 'image_gen', 'vision'],
    contextWindow: 32_000, maxOutputTokens: 0, inputModalities: ['text', 'image'], outputModalities: ['image'],
    created: CREATED, nativeProtocols: ['generate-content'], protocols: [],
    prices: { perImage: { '*:standard': 39_000, '*:high': 39_000 } },
    image: { qualities: ['standard', 'high', 'auto'], editable: true },
  },
  {
    id: 'veo-3', familyNumber: 3, family: 'google', ownedBy: 'google', kind: 'video',
    capabilities: ['text', 'video_gen', 'video'],
    contextWindow: 1_024, maxOutputTokens: 0, inputModalities: ['text', 'image'], outputModalities: ['video'],
    created: CREATED, nativeProtocols: ['generate-content'], protocols: [],
    prices: { perVideoSecond: { '720p': 150_000, '1080p': 400_000 } },
    video: { maxDurationSeconds: 8, resolutions: ['720p', '1080p'], aspectRatios: ['16:9', '9:16', '1:1'], imageInput: true },
  },
  // Family 4: Messages on the newer version only.
  {
    id: 'deepseek-v3.2', familyNumber: 4, family: 'deepseek', ownedBy: 'deepseek', kind: 'chat',
    capabilities: [...CHAT, 'thinking'],
    contextWindow: 64_000, maxOutputTokens: 8_192, inputModalities: ['text'], outputModalities: ['text'],
    created: CREATED, nativeProtocols: ['chat'], protocols: ['messages', 'chat'],
    prices: { inputPerMillion: 280_000, outputPerMillion: 420_000, cacheReadPerMillion: 28_000 },
  },
  {
    id: 'deepseek-v3', familyNumber: 4, family: 'deepseek', ownedBy: 'deepseek', kind: 'chat',
    capabilities: [...CHAT],
    contextWindow: 64_000, maxOutputTokens: 8_192, inputModalities: ['text'], outputModalities: ['text'],
    created: CREATED, nativeProtocols: ['chat'], protocols: ['chat'],
    prices: { inputPerMillion: 270_000, outputPerMillion: 1_100_000, cacheReadPerMillion: 70_000 },
  },
  // Family 5: Messages and Chat.
  {
    id: 'kimi-k2', familyNumber: 5, family: 'moonshot', ownedBy: 'moonshot', kind: 'chat',
    capabilities: [...CHAT],
    contextWindow: 256_000, maxOutputTokens: 8_192, inputModalities: ['text'], outputModalities: ['text'],
    created: CREATED, nativeProtocols: ['chat'], protocols: ['messages', 'chat'],
    prices: { inputPerMillion: 600_000, outputPerMillion: 2_500_000, cacheReadPerMillion: 150_000 },
  },
  // Families 6, 7, 8: Chat only.
  {
    id: 'mistral-large', familyNumber: 6, family: 'mistral', ownedBy: 'mistral', kind: 'chat',
    capabilities: [...CHAT, 'vision', 'json_schema'],
    contextWindow: 128_000, maxOutputTokens: 16_384, inputModalities: ['text', 'image'], outputModalities: ['text'],
    created: CREATED, nativeProtocols: ['chat'], protocols: ['chat'],
    prices: { inputPerMillion: 2_000_000, outputPerMillion: 6_000_000 },
  },
  {
    id: 'grok-4', familyNumber: 7, family: 'xai', ownedBy: 'xai', kind: 'chat',
    capabilities: [...CHAT, 'vision', 'json_schema', 'logprobs'],
    contextWindow: 256_000, maxOutputTokens: 8_192, inputModalities: ['text', 'image'], outputModalities: ['text'],
    created: CREATED, nativeProtocols: ['chat'], protocols: ['chat'],
    prices: { inputPerMillion: 3_000_000, outputPerMillion: 15_000_000, cacheReadPerMillion: 750_000 },
  },
  {
    id: 'llama-3.3-70b', familyNumber: 8, family: 'meta', ownedBy: 'meta', kind: 'chat',
    capabilities: [...CHAT],
    contextWindow: 64_000, maxOutputTokens: 8_192, inputModalities: ['text'], outputModalities: ['text'],
    created: CREATED, nativeProtocols: ['chat'], protocols: ['chat'],
    prices: { inputPerMillion: 590_000, outputPerMillion: 790_000 },
  },
  // A retired slug: not listed, answers 400 unsupported_model.
  {
    id: 'claude-2.1', familyNumber: 1, family: 'anthropic', ownedBy: 'anthropic', kind: 'chat',
    capabilities: [...CHAT], contextWindow: 200_000, maxOutputTokens: 4_096, inputModalities: ['text'], outputModalities: ['text'],
    created: 1700000000, nativeProtocols: ['messages'], protocols: ['messages', 'responses', 'chat'],
    prices: { inputPerMillion: 8_000_000, outputPerMillion: 24_000_000 }, retired: true,
  },
];
