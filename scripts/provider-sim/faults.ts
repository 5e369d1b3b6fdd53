/**
 * Fault and latency controls of one request. They come from a header (`x-sim-fault`,
 * `x-sim-ttft-ms`, `x-sim-chunk-delay-ms`), from base-URL prefixes (`/_fault/<mode>`,
 * `/_latency/<ttftMs>/<chunkDelayMs>`, stripped before routing, because the gateway never forwards
 * client headers upstream) or from a `@fault=<mode>` suffix on a `sim-` model name.
 */
export const FAULT_MODES = ['429', '500', '503', '529', 'hang', 'slow-first-byte', 'cut', 'error-event'] as const;

export type FaultMode = (typeof FAULT_MODES)[number];

export function isFaultMode(value: string): value is FaultMode {
  return (FAULT_MODES as readonly string[]).includes(value);
}

export interface RequestControls {
  fault: FaultMode | null;
  ttftMs: number;
  chunkDelayMs: number;
  /** The `x-sim-ttft-ms` header or path value, when given: `slow-first-byte` waits that long. */
  explicitTtftMs: number | null;
}

export interface StrippedPath {
  path: string;
  fault: FaultMode | null;
  ttftMs: number | null;
  chunkDelayMs: number | null;
}

/** Removes every leading `/_fault/<mode>` and `/_latency/<t>/<d>` segment, in any order. */
export function stripControlPrefixes(path: string): StrippedPath {
  let rest = path;
  let fault: FaultMode | null = null;
  let ttftMs: number | null = null;
  let chunkDelayMs: number | null = null;
  for (;;) {
    const faultMatch = /^\/_fault\/([^/?]+)(?=\/|\?|$)/.exec(rest);
    if (faultMatch !== null && isFaultMode(faultMatch[1]!)) {
      fault = faultMatch[1] as FaultMode;
      rest = rest.slice(faultMatch[0].length);
      continue;
    }
    const latencyMatch = /^\/_latency\/(\d+)\/(\d+)(?=\/|\?|$)/.exec(rest);
    if (latencyMatch !== null) {
      ttftMs = Number(latencyMatch[1]);
      chunkDelayMs = Number(latencyMatch[2]);
      rest = rest.slice(latencyMatch[0].length);
      continue;
    }
    break;
  }
  if (rest === '' || rest.startsWith('?')) rest = `/${rest}`;
  return { path: rest, fault, ttftMs, chunkDelayMs };
}

/** Splits `sim-x@fault=500` into the model name and its fault; other names pass unchanged. */
export function splitModelFault(model: string): { model: string; fault: FaultMode | null } {
  const at = model.indexOf('@fault=');
  if (!model.startsWith('sim-') || at < 0) return { model, fault: null };
  const mode = model.slice(at + '@fault='.length);
  return { model: model.slice(0, at), fault: isFaultMode(mode) ? mode : null };
}

export function headerNumber(value: string | string[] | undefined): number | null {
  const text = Array.isArray(value) ? value[0] : value;
  if (text === undefined || !/^\d+$/.test(text.trim())) return null;
  return Number(text.trim());
}
