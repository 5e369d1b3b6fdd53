/**
 * The default model catalog: all eight families, two image models (families 2 and 3) and a video
 * model (family 3). Every model is served by the provider simulator in development and tests.
 * Protocols follow the interface's family table.
 *
 * Limits are the providers' published ones (context window / max output), so a client's usual
 * `max_tokens` passes: Anthropic's model overview pages (platform.claude.com/docs/models/…),
 * OpenAI's model pages (platform.openai.com/docs/models/gpt-5, /gpt-4.1), Google's Gemini API model
 * pages (ai.google.dev/gemini-api/docs/models), DeepSeek's pricing page
 * (api-docs.deepseek.com/quick_start/pricing). Models without a published output cap keep 8,192.
 *
 * Aliases are the dated snapshot names and the names the agent CLIs ask for by default (Claude Code
 * 2.1, Codex, Gemini CLI 0.61's router: see README "Models and aliases"); an alias is served by its
 * model and billed at its prices.
 */
import type { CatalogModel, Capability } from './model';

const CREATED = 1767225600; // 2026-01-01
const CHAT: Capability[] = ['text', 'streaming', 'tool_use'];

export const DEFAULT_CATALOG: CatalogModel[] = [
  // Family 1: originates Messages.
  {
    id: 'claude-sonnet-4-5', aliases: ['claude-sonnet-4-5-20250929'], familyNumber: 1, family: 'anthropic', ownedBy: 'anthropic', kind: 'chat',
    capabilities: [...CHAT, 'vision', 'cache_control', 'thinking', 'json_schema'],
    // platform.claude.com/docs/models/sonnet-4-5/overview: 200K context, 64K output.
    contextWindow: 200_000, maxOutputTokens: 64_000, inputModalities: ['text', 'image'], outputModalities: ['text'],
    created: CREATED, nativeProtocols: ['messages'], protocols: ['messages', 'responses', 'chat'],
    prices: { inputPerMillion: 3_000_000, outputPerMillion: 15_000_000, cacheReadPerMillion: 300_000, cacheWritePerMillion: 3_750_000 },
  },
  {
    id: 'claude-haiku-4-5', aliases: ['claude-haiku-4-5-20251001'], familyNumber: 1, family: 'anthropic', ownedBy: 'anthropic', kind: 'chat',
    capabilities: [...CHAT, 'vision', 'cache_control'],
    // platform.claude.com/docs/models/haiku-4-5/overview: 200K context, 64K output.
    contextWindow: 200_000, maxOutputTokens: 64_000, inputModalities: ['text', 'image'], outputModalities: ['text'],
    created: CREATED, nativeProtocols: ['messages'], protocols: ['messages', 'responses', 'chat'],
    prices: { inputPerMillion: 1_000_000, outputPerMillion: 5_000_000, cacheReadPerMillion: 100_000, cacheWritePerMillion: 1_250_000 },
  },
  {
    // Claude Code's "opus" model.
    id: 'claude-opus-4-5', aliases: ['claude-opus-4-5-20251101'], familyNumber: 1, family: 'anthropic', ownedBy: 'anthropic', kind: 'chat',
    capabilities: [...CHAT, 'vision', 'cache_control', 'thinking', 'json_schema'],
    // platform.claude.com/docs/models/opus-4-5/overview: 200K context, 64K output; $5 / $25.
    contextWindow: 200_000, maxOutputTokens: 64_000, inputModalities: ['text', 'image'], outputModalities: ['text'],
    created: CREATED, nativeProtocols: ['messages'], protocols: ['messages', 'responses', 'chat'],
    prices: { inputPerMillion: 5_000_000, outputPerMillion: 25_000_000, cacheReadPerMillion: 500_000, cacheWritePerMillion: 6_250_000 },
  },
  {
    // Claude Code 2.1.330's default model (no --model).
    id: 'claude-opus-5-5', familyNumber: 1, family: 'anthropic', ownedBy: 'anthropic', kind: 'chat',
    capabilities: [...CHAT, 'vision', 'cache_control', 'thinking', 'json_schema'],
    // platform.claude.com/docs/models/opus-5-5/overview: 1M context, 128K output; $4 / $20, cache read $0.20, 5m write $5.
    contextWindow: 1_000_000, maxOutputTokens: 128_000, inputModalities: ['text', 'image'], outputModalities: ['text'],
    created: CREATED, nativeProtocols: ['messages'], protocols: ['messages', 'responses', 'chat'],
    prices: { inputPerMillion: 4_000_000, outputPerMillion: 20_000_000, cacheReadPerMillion: 200_000, cacheWritePerMillion: 5_000_000 },
  },
  {
    // Claude Code 2.1.330's small, fast model (titles, command checks, sub-agents).
    id: 'claude-haiku-5-5', familyNumber: 1, family: 'anthropic', ownedBy: 'anthropic', kind: 'chat',
    capabilities: [...CHAT, 'vision', 'cache_control', 'thinking', 'json_schema'],
    // platform.claude.com/docs/models/haiku-5-5/overview: 1M context, 128K output; $0.10 / $0.50, 5m write
    // $0.125 (prompts up to 100K tokens; the long-prompt rates are not modelled; cache read at a tenth of input).
    contextWindow: 1_000_000, maxOutputTokens: 128_000, inputModalities: ['text', 'image'], outputModalities: ['text'],
    created: CREATED, nativeProtocols: ['messages'], protocols: ['messages', 'responses', 'chat'],
    prices: { inputPerMillion: 100_000, outputPerMillion: 500_000, cacheReadPerMillion: 10_000, cacheWritePerMillion: 125_000 },
  },
  // Family 2: originates Chat Completions and Responses.
  {
    id: 'gpt-5', familyNumber: 2, family: 'openai', ownedBy: 'openai', kind: 'chat',
    // The dated snapshot and the Codex names Codex CLI asks for by default.
    aliases: ['gpt-5-2025-08-07', 'gpt-5-codex', 'gpt-5.1', 'gpt-5.1-codex'],
    capabilities: [...CHAT, 'vision', 'thinking', 'json_schema'],
    // platform.openai.com/docs/models/gpt-5: 400,000 context, 128,000 output.
    contextWindow: 400_000, maxOutputTokens: 128_000, inputModalities: ['text', 'image'], outputModalities: ['text'],
    created: CREATED, nativeProtocols: ['responses', 'chat'], protocols: ['messages', 'responses', 'chat'],
    prices: { inputPerMillion: 1_250_000, outputPerMillion: 10_000_000, cacheReadPerMillion: 125_000 },
    fixedTemperature: 1,
  },
  {
    // Codex 0.169's default model (no `model` in config.toml).
    id: 'gpt-6.1-sol', aliases: ['gpt-6.1-sol-2026-09-29'], familyNumber: 2, family: 'openai', ownedBy: 'openai', kind: 'chat',
    capabilities: [...CHAT, 'vision', 'thinking', 'json_schema'],
    // developers.openai.com/api/docs/models/gpt-6.1-sol: 1,050,000 context, 128,000 output; $2 / $10, cached $0.10
    // (prompts up to 272K tokens; the long-context rates are not modelled).
    contextWindow: 1_050_000, maxOutputTokens: 128_000, inputModalities: ['text', 'image'], outputModalities: ['text'],
    created: CREATED, nativeProtocols: ['responses', 'chat'], protocols: ['messages', 'responses', 'chat'],
    prices: { inputPerMillion: 2_000_000, outputPerMillion: 10_000_000, cacheReadPerMillion: 100_000 },
    fixedTemperature: 1,
  },
  {
    id: 'gpt-4.1', aliases: ['gpt-4.1-2025-04-14'], familyNumber: 2, family: 'openai', ownedBy: 'openai', kind: 'chat',
    capabilities: [...CHAT, 'vision', 'json_schema', 'logprobs'],
    // platform.openai.com/docs/models/gpt-4.1: 1,047,576 context, 32,768 output.
    contextWindow: 1_047_576, maxOutputTokens: 32_768, inputModalities: ['text', 'image'], outputModalities: ['text'],
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
    id: 'gemini-2.5-pro', aliases: ['gemini-2.5-pro-001'], familyNumber: 3, family: 'google', ownedBy: 'google', kind: 'chat',
    capabilities: [...CHAT, 'vision', 'thinking', 'json_schema', 'cache_control'],
    // ai.google.dev/gemini-api/docs/models#gemini-2.5-pro: 1,048,576 input, 65,536 output.
    contextWindow: 1_048_576, maxOutputTokens: 65_536, inputModalities: ['text', 'image', 'audio', 'video'], outputModalities: ['text'],
    created: CREATED, nativeProtocols: ['generate-content'], protocols: ['messages', 'responses', 'chat', 'generate-content'],
    prices: { inputPerMillion: 1_250_000, outputPerMillion: 10_000_000, cacheReadPerMillion: 312_500 },
  },
  {
    id: 'gemini-2.5-flash', aliases: ['gemini-2.5-flash-001'], familyNumber: 3, family: 'google', ownedBy: 'google', kind: 'chat',
    capabilities: [...CHAT, 'vision', 'thinking', 'json_schema'],
    // ai.google.dev/gemini-api/docs/models#gemini-2.5-flash: 1,048,576 input, 65,536 output.
    contextWindow: 1_048_576, maxOutputTokens: 65_536, inputModalities: ['text', 'image'], outputModalities: ['text'],
    created: CREATED, nativeProtocols: ['generate-content'], protocols: ['messages', 'responses', 'chat', 'generate-content'],
    prices: { inputPerMillion: 300_000, outputPerMillion: 2_500_000, cacheReadPerMillion: 75_000 },
  },
  {
    // Gemini CLI's classifier and its flash-lite names (0.61: gemini-3.1-flash-lite, gemini-3.5-flash-lite).
    id: 'gemini-2.5-flash-lite', aliases: ['gemini-2.5-flash-lite-001', 'gemini-3.1-flash-lite', 'gemini-3.5-flash-lite'],
    familyNumber: 3, family: 'google', ownedBy: 'google', kind: 'chat',
    capabilities: [...CHAT, 'vision', 'thinking', 'json_schema'],
    // ai.google.dev/gemini-api/docs/models#gemini-2.5-flash-lite: 1,048,576 input, 65,536 output; $0.10 / $0.40.
    contextWindow: 1_048_576, maxOutputTokens: 65_536, inputModalities: ['text', 'image'], outputModalities: ['text'],
    created: CREATED, nativeProtocols: ['generate-content'], protocols: ['messages', 'responses', 'chat', 'generate-content'],
    prices: { inputPerMillion: 100_000, outputPerMillion: 400_000, cacheReadPerMillion: 25_000 },
  },
  {
    // Gemini CLI's default "auto" asks for the preview Pro names first.
    id: 'gemini-3-pro-preview', aliases: ['gemini-3.1-pro-preview', 'gemini-3.1-pro-preview-customtools'],
    familyNumber: 3, family: 'google', ownedBy: 'google', kind: 'chat',
    capabilities: [...CHAT, 'vision', 'thinking', 'json_schema'],
    // ai.google.dev/gemini-api/docs/models#gemini-3-pro: 1,048,576 input, 65,536 output; $2 / $12 (≤200K prompts).
    contextWindow: 1_048_576, maxOutputTokens: 65_536, inputModalities: ['text', 'image'], outputModalities: ['text'],
    created: CREATED, nativeProtocols: ['generate-content'], protocols: ['messages', 'responses', 'chat', 'generate-content'],
    prices: { inputPerMillion: 2_000_000, outputPerMillion: 12_000_000, cacheReadPerMillion: 200_000 },
  },
  {
    // Gemini CLI's router sends its flash turns here (0.61: gemini-3-flash-preview, gemini-3.5-flash, …).
    id: 'gemini-3-flash-preview', aliases: ['gemini-3-flash', 'gemini-3.5-flash', 'gemini-3.8-flash'],
    familyNumber: 3, family: 'google', ownedBy: 'google', kind: 'chat',
    capabilities: [...CHAT, 'vision', 'thinking', 'json_schema'],
    // ai.google.dev/gemini-api/docs/models#gemini-3-flash: 1,048,576 input, 65,536 output; $0.50 / $3.
    contextWindow: 1_048_576, maxOutputTokens: 65_536, inputModalities: ['text', 'image'], outputModalities: ['text'],
    created: CREATED, nativeProtocols: ['generate-content'], protocols: ['messages', 'responses', 'chat', 'generate-content'],
    prices: { inputPerMillion: 500_000, outputPerMillion: 3_000_000, cacheReadPerMillion: 50_000 },
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
    id: 'deepseek-v3.2', aliases: ['deepseek-chat'], familyNumber: 4, family: 'deepseek', ownedBy: 'deepseek', kind: 'chat',
    capabilities: [...CHAT, 'thinking'],
    // api-docs.deepseek.com/quick_start/pricing: deepseek-chat (V3.2) 128K context, 8K output.
    contextWindow: 128_000, maxOutputTokens: 8_192, inputModalities: ['text'], outputModalities: ['text'],
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
