/**
 * The operator's test button: can the gateway reach this upstream's base URL? Any HTTP answer counts
 * as reachable (a provider's root usually answers 404); a refused connection or a timeout does not.
 * It sends no credential and no model request, so it costs nothing upstream.
 */
const TIMEOUT_MS = 5_000;

export async function probeUpstream(baseUrl: string): Promise<{ reachable: boolean; http_status: number | null; latency_ms: number; detail: string }> {
  const started = performance.now();
  try {
    const response = await fetch(baseUrl, { method: 'GET', signal: AbortSignal.timeout(TIMEOUT_MS), redirect: 'manual' });
    await response.body?.cancel();
    return { reachable: true, http_status: response.status, latency_ms: Math.round(performance.now() - started), detail: `HTTP ${response.status}` };
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).name;
    return { reachable: false, http_status: null, latency_ms: Math.round(performance.now() - started), detail: `unreachable: ${cause}` };
  }
}
