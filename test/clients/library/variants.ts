/** The library variants of the suite and the protocol each speaks (kept free of the ESM-only libraries, so jest can read it). */
export const AI_SDK_VARIANTS = {
  'AI SDK openai (chat)': 'chat',
  'AI SDK openai (responses)': 'responses',
  'AI SDK anthropic': 'messages',
  'AI SDK google': 'generate-content',
  'AI SDK openai-compatible': 'chat',
} as const;
export type AiSdkVariant = keyof typeof AI_SDK_VARIANTS;

export const LANGCHAIN_VARIANTS = {
  'LangChain ChatOpenAI': 'chat',
  'LangChain ChatOpenAI (Responses API)': 'responses',
  'LangChain ChatAnthropic': 'messages',
  'LangChain ChatGoogleGenerativeAI': 'generate-content',
} as const;
export type LangChainVariant = keyof typeof LANGCHAIN_VARIANTS;
