/** The figures the admission and settle scripts return, parsed once into a typed shape. */
import type { WindowName } from './spend-windows';

export interface WindowFigures {
  /** Settled spend in the window, credits. */
  used: number;
  /** Unix ms when the window next gains room (0 for an unlimited window; now for an empty one). */
  resetAtMs: number;
}

export interface AdmissionFigures {
  /** Cached wallet, credits (may be negative after a stream overran it). */
  walletCredits: number;
  /** Lifetime settled spend of the key, credits. */
  spentCredits: number;
  /** Open concurrency leases of the account. */
  leases: number;
  reservedKeyCredits: number;
  reservedAccountCredits: number;
  windows: Record<WindowName, WindowFigures>;
}

export interface ScriptReply {
  status: string;
  detail: string;
  detailResetMs: number;
  figures?: AdmissionFigures;
}

function toNumber(value: unknown): number {
  const number = typeof value === 'number' ? value : Number(value);
  if (!Number.isFinite(number)) throw new Error(`admission script returned a non-number: ${String(value)}`);
  return number;
}

export function parseScriptReply(reply: unknown): ScriptReply {
  if (!Array.isArray(reply) || reply.length === 0) throw new Error('admission script returned no reply');
  const status = String(reply[0]);
  const detail = reply[1] === undefined || reply[1] === null ? '' : String(reply[1]);
  const detailResetMs = reply[2] === undefined || reply[2] === null ? 0 : toNumber(reply[2]);
  if (reply.length < 14) return { status, detail, detailResetMs };
  const n = (index: number) => toNumber(reply[index]);
  return {
    status,
    detail,
    detailResetMs,
    figures: {
      walletCredits: n(3),
      spentCredits: n(4),
      leases: n(5),
      reservedKeyCredits: n(6),
      reservedAccountCredits: n(7),
      windows: {
        '5h': { used: n(8), resetAtMs: n(9) },
        '1d': { used: n(10), resetAtMs: n(11) },
        '7d': { used: n(12), resetAtMs: n(13) },
      },
    },
  };
}
