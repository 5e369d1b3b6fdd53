/** What a repository function runs its statements on: the pool, or a client inside a transaction. */
import type { Pool, PoolClient } from 'pg';

export type Queryable = Pool | PoolClient;
