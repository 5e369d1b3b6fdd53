import type { AdmissionTicket } from '../limits/admission';

/** Guards a ticket so exactly one of settle/release takes effect, whatever path ends the request. */
export function onceTicket(ticket: AdmissionTicket): AdmissionTicket {
  let closed = false;
  let last: Record<string, string> = ticket.headers();
  return {
    requestId: ticket.requestId,
    headers: () => last,
    heartbeat: () => (closed ? Promise.resolve() : ticket.heartbeat()),
    async settle(actualCredits) {
      if (closed) return last;
      closed = true;
      last = await ticket.settle(actualCredits);
      return last;
    },
    async release() {
      if (closed) return;
      closed = true;
      await ticket.release();
    },
  };
}
