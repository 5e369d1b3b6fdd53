import type { IncomingMessage, ServerResponse } from 'node:http';
import type { BoundedMap } from '../bounded-map';
import type { RequestControls } from '../faults';
import type { ModelRegistry } from '../models';
import type { PromptCache } from '../answer/prompt-cache';
import type { PngCache } from '../images/png';
import type { SimRequestLog } from '../request-log';
import type { ErrorFamily } from '../sim-error';
import type { StoredResponse } from '../responses/stored-response';
import type { VideoOperation } from '../video/video-operation';

export interface ResolvedSimOptions {
  apiKey: string;
  ttftMs: number;
  chunkDelayMs: number;
  videoMs: number;
  imageMs: number;
}

/** Everything one simulator instance remembers between requests. */
export interface SimState {
  options: ResolvedSimOptions;
  /** `http://host:port`, known once listening. */
  baseUrl: string;
  models: ModelRegistry;
  promptCache: PromptCache;
  pngs: PngCache;
  responses: BoundedMap<string, StoredResponse>;
  /** Ids of output items of stored responses, which may be replayed by id alone. */
  responseItemIds: BoundedMap<string, true>;
  videoOperations: BoundedMap<string, VideoOperation>;
  /** Images returned as URLs (`response_format: url`), served from memory. */
  images: BoundedMap<string, Buffer>;
  /** Aborted when the simulator closes, to end every pending wait. */
  closing: AbortSignal;
}

/** One request being answered. */
export interface SimContext {
  state: SimState;
  request: IncomingMessage;
  response: ServerResponse;
  /** Routed path (control prefixes stripped), without query. */
  path: string;
  query: URLSearchParams;
  controls: RequestControls;
  log: SimRequestLog;
  family: ErrorFamily;
  /** Headers every answer of this family carries (request ids). */
  defaultHeaders: Record<string, string>;
  /** The credential the request authenticated with ('' before, or on unauthenticated routes): prompt caches are per credential. */
  credential: string;
  /** Set when the simulator itself cut the connection (fault `cut`), so it is not logged as a client abort. */
  serverCut: boolean;
}
