/**
 * Reads a child process's heap after a full garbage collection, through the V8 inspector: SIGUSR1
 * opens the inspector of a running node process (on the port given by `--inspect-port`), then
 * `HeapProfiler.collectGarbage` and `process.memoryUsage()`. Without the forced collection a heap
 * figure is mostly the garbage of whatever ran before, and per-stream deltas come out negative.
 */
import { WebSocket } from 'undici';

export interface HeapProbe {
  /** Heap used (bytes) right after a full collection. */
  heapUsedAfterGc(): Promise<number>;
  close(): void;
}

interface InspectorReply {
  id: number;
  result?: { result?: { value?: unknown } };
  error?: { message: string };
}

export async function openHeapProbe(pid: number, inspectPort: number, timeoutMs = 10_000): Promise<HeapProbe> {
  process.kill(pid, 'SIGUSR1');
  const deadline = Date.now() + timeoutMs;
  let socketUrl: string | undefined;
  while (!socketUrl) {
    try {
      const targets = (await (await fetch(`http://127.0.0.1:${inspectPort}/json/list`)).json()) as Array<{ webSocketDebuggerUrl?: string }>;
      socketUrl = targets[0]?.webSocketDebuggerUrl;
    } catch {
      /* not listening yet */
    }
    if (!socketUrl) {
      if (Date.now() > deadline) throw new Error(`the inspector of process ${pid} did not open on port ${inspectPort}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  const socket = new WebSocket(socketUrl);
  await new Promise<void>((resolve, reject) => {
    socket.addEventListener('open', () => resolve(), { once: true });
    socket.addEventListener('error', () => reject(new Error('cannot connect to the inspector')), { once: true });
  });
  let nextId = 1;
  const waiting = new Map<number, { resolve: (reply: InspectorReply) => void; reject: (error: Error) => void }>();
  socket.addEventListener('message', (event) => {
    const reply = JSON.parse(String(event.data)) as InspectorReply;
    const waiter = waiting.get(reply.id);
    if (!waiter) return;
    waiting.delete(reply.id);
    if (reply.error) waiter.reject(new Error(reply.error.message));
    else waiter.resolve(reply);
  });
  const send = (method: string, params: Record<string, unknown> = {}) =>
    new Promise<InspectorReply>((resolve, reject) => {
      const id = nextId++;
      waiting.set(id, { resolve, reject });
      socket.send(JSON.stringify({ id, method, params }));
    });
  return {
    async heapUsedAfterGc() {
      await send('HeapProfiler.collectGarbage');
      const reply = await send('Runtime.evaluate', { expression: 'process.memoryUsage().heapUsed', returnByValue: true });
      return Number(reply.result?.result?.value ?? 0);
    },
    close: () => socket.close(),
  };
}
