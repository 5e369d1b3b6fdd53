/** The four wire protocols the gateway speaks, inbound (to clients) and upstream (to providers). */
export type Protocol = 'messages' | 'responses' | 'chat' | 'generate-content';

export const PROTOCOLS: readonly Protocol[] = ['messages', 'responses', 'chat', 'generate-content'];

export function isProtocol(value: unknown): value is Protocol {
  return typeof value === 'string' && (PROTOCOLS as readonly string[]).includes(value);
}
