/**
 * A curl command that reproduces a logged request: the protocol's path and headers, the kept body
 * (or a minimal one naming the model when bodies were not kept), and the key as $GATEWAY_API_KEY,
 * never the secret itself.
 */
import type { RequestDetail } from '../api';

const quote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

function target(record: RequestDetail): { path: string; headers: string[] } {
  const model = encodeURIComponent(record.model ?? 'MODEL');
  switch (record.protocol) {
    case 'messages':
      return { path: '/v1/messages', headers: ['x-api-key: $GATEWAY_API_KEY', 'anthropic-version: 2023-06-01'] };
    case 'responses':
      return { path: '/v1/responses', headers: ['Authorization: Bearer $GATEWAY_API_KEY'] };
    case 'generate-content':
      return {
        path: `/v1beta/models/${model}:${record.stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`,
        headers: ['x-goog-api-key: $GATEWAY_API_KEY'],
      };
    case 'images':
      return { path: '/v1/images/generations', headers: ['Authorization: Bearer $GATEWAY_API_KEY'] };
    default:
      return { path: '/v1/chat/completions', headers: ['Authorization: Bearer $GATEWAY_API_KEY'] };
  }
}

export function curlFor(record: RequestDetail, origin: string): string {
  const { path, headers } = target(record);
  const body = record.bodies?.request ?? JSON.stringify({ model: record.model, '…': 'the body was not kept' });
  // Double quotes around headers so the shell expands $GATEWAY_API_KEY; the body is single-quoted as is.
  return [
    `curl ${quote(origin + path)}`,
    ...headers.map((header) => `-H "${header}"`),
    `-H 'content-type: application/json'`,
    `-d ${quote(body)}`,
  ].join(' \\\n  ');
}
