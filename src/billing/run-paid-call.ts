/**
 * The one pipeline of a paid call (inference, images, task submit): admit → work → end. Only this
 * function holds the admission ticket and it ends it exactly once, however the work ends: the work
 * returns an ending (`settle` with its charge, or `release`), and anything it throws releases.
 * Failed calls are free; the lease and the reservation are back as soon as the work returns.
 */
import type { Logger } from '../http/logger';
import type { Admission, SettlementRider } from '../limits/admission';
import type { GatewayAdmissionRequest } from '../limits/create-admission';
import { chargeCall, type CallCharge } from './charge-call';
import type { UsageRecorder } from './usage-event';

/** What the work may do with its admission: read the headers as of admission, keep the lease alive. */
export interface AdmittedCall {
  readonly requestId: string;
  headers(): Record<string, string>;
  heartbeat(): Promise<void>;
}

export type CallEnding =
  | { kind: 'release' }
  | {
      kind: 'settle';
      charge: CallCharge;
      /** Sends the answer with the accounting headers after the charge (a whole answer is sent after it is billed). */
      deliver?: (headers: Record<string, string>) => void | Promise<void>;
      /**
       * With `deliver`: builds, at the moment of settling, a record that rides in the settlement's
       * script call (the request log's record of the whole answer, see SettlementRider).
       */
      rider?: () => SettlementRider | undefined;
    };

export interface PaidCallServices {
  admission: Admission;
  usage: UsageRecorder;
  logger: Logger;
}

export async function runPaidCall(
  services: PaidCallServices,
  request: GatewayAdmissionRequest,
  work: (call: AdmittedCall) => Promise<CallEnding>,
  onAdmitted?: (call: AdmittedCall) => void,
): Promise<void> {
  const ticket = await services.admission.admit(request);
  const call: AdmittedCall = { requestId: request.requestId, headers: () => ticket.headers(), heartbeat: () => ticket.heartbeat() };
  onAdmitted?.(call);
  let ending: CallEnding = { kind: 'release' };
  try {
    ending = await work(call);
  } finally {
    if (ending.kind === 'release') {
      await ticket
        .release()
        .catch((error: unknown) =>
          services.logger.error({ err: error, requestId: request.requestId }, 'releasing an admission failed; its lease expires'),
        );
    }
  }
  if (ending.kind === 'settle') {
    const headers = await chargeCall(ticket, services.usage, ending.charge, ending.deliver ? ending.rider?.() : undefined);
    await ending.deliver?.(headers);
  }
}
