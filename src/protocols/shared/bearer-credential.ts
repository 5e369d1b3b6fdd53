/** The OpenAI-style upstream credential: `Authorization: Bearer <key>`. */
export function setBearerCredential(headers: Record<string, string>, credential: string): void {
  headers.authorization = `Bearer ${credential}`;
}
